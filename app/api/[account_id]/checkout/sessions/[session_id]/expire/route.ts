export { GET, POST, PUT, PATCH, DELETE, OPTIONS } from "@/app/api/checkout/sessions/[session_id]/expire/route";
