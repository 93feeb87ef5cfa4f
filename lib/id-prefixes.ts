// Pure (no server imports): lib/ids.ts makes ids with these, and the dashboard reads ids by them.
import { MANIFEST_ID_PREFIXES } from "./manifests.generated";

/** Every object prefix of the spec, plus our own (`org_`, `user_`, `inv_`, `key_`, `eda_`, `cpn_`, `di_`, `il_`, `pi_`, `py_`, `re_`, `scr_`, `mtr_`, `cn_`, `cbtxn_`), then those of the domain folders' manifests (lib/<domain>/manifest.ts, generated into lib/manifests.generated.ts). */
export const ID_PREFIXES = {
  organization: "org_",
  user: "user_",
  invitation: "inv_",
  account: "acc_",
  apiToken: "key_",
  customer: "cus_",
  subscription: "sub_",
  invoice: "in_",
  product: "prod_",
  price: "price_",
  checkoutSession: "cs_",
  event: "evt_",
  eventDelivery: "ed_",
  deliveryAttempt: "eda_",
  webhookEndpoint: "whe_",
  coupon: "cpn_",
  invoiceLine: "il_",
  paymentIntent: "pi_",
  payment: "py_",
  refund: "re_",
  customerDiscount: "di_",
  subscriptionItem: "si_",
  subscriptionChangeRequest: "scr_",
  request: "req_",
  taxRate: "txr_",
  meter: "mtr_",
  feature: "feat_",
  productFeature: "prodft_",
  portalSession: "bps_",
  creditNote: "cn_",
  customerBalanceTransaction: "cbtxn_",
  ...MANIFEST_ID_PREFIXES,
} as const;

export type IdKind = keyof typeof ID_PREFIXES;
