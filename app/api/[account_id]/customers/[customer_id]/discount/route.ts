export { GET, POST, PUT, PATCH, DELETE, OPTIONS } from "@/app/api/customers/[customer_id]/discount/route";
