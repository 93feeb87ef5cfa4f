export { GET, POST, PUT, PATCH, DELETE, OPTIONS } from "@/app/api/products/[product_id]/route";
