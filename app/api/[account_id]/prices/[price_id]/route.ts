export { GET, POST, PUT, PATCH, DELETE, OPTIONS } from "@/app/api/prices/[price_id]/route";
