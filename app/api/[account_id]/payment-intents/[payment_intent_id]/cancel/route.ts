export { GET, POST, PUT, PATCH, DELETE, OPTIONS } from "@/app/api/payment-intents/[payment_intent_id]/cancel/route";
