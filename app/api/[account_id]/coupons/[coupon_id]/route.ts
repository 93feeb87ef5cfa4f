export { GET, POST, PUT, PATCH, DELETE, OPTIONS } from "@/app/api/coupons/[coupon_id]/route";
