export { GET, POST, PUT, PATCH, DELETE, OPTIONS } from "@/app/api/refunds/[refund_id]/route";
