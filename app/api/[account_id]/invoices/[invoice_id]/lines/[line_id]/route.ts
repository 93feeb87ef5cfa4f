export { GET, POST, PUT, PATCH, DELETE, OPTIONS } from "@/app/api/invoices/[invoice_id]/lines/[line_id]/route";
