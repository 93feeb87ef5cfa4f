export { GET, POST, PUT, PATCH, DELETE, OPTIONS } from "@/app/api/subscriptions/[subscription_id]/change-plan/route";
