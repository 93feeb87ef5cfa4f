import type { Page } from "@playwright/test";

/**
 * A fake Stripe.js, injected with `page.addInitScript` before the page's own scripts run.
 * `@stripe/stripe-js`'s `loadStripe` resolves to `window.Stripe` when it exists and injects no
 * script of js.stripe.com then (node_modules/@stripe/stripe-js/dist/pure.mjs, the entry the page imports, `loadScript`:
 * `if (window.Stripe) { resolve(window.Stripe); return; }` before `injectScript`), so the page
 * runs its real code (`@stripe/react-stripe-js`'s `<Elements>`, `<PaymentElement>`,
 * `stripe.confirmPayment`, `stripe.confirmSetup`) against this instead, and nothing reaches Stripe.
 *
 * What it does is what Stripe.js does, against the Stripe stand-in (tests/helpers/stripe-stand-in.ts):
 * the Payment Element is a card-number field (Stripe's test card numbers, sent as the test
 * payment methods they stand for); `confirmPayment` confirms the PaymentIntent with the publishable
 * key and its client secret (`POST /v1/payment_intents/{id}/confirm`, as Stripe.js calls
 * api.stripe.com); a `requires_action` answer opens a 3-D Secure challenge (a dialog with
 * "Complete authentication" and "Fail authentication", the issuer's page), whose outcome the
 * stand-in records (it then sends the signed webhook); success leaves for the return URL with
 * Stripe's parameters (`payment_intent`, `payment_intent_client_secret`, `redirect_status`), a
 * failure resolves `{ error }` and stays on the page.
 */
export async function installFakeStripe(page: Page, standInUrl: string): Promise<void> {
  await page.addInitScript(fakeStripe, { standInUrl });
}

/** Runs in the browser: no closure over test code (Playwright serializes it). */
function fakeStripe({ standInUrl }: { standInUrl: string }): void {
  type Json = Record<string, unknown>;
  type Listener = (event: unknown) => void;
  /** Stripe's test card numbers, as the test payment methods Stripe.js would create for them. */
  const CARDS: Record<string, string> = {
    "4242424242424242": "pm_card_visa",
    "5555555555554444": "pm_card_mastercard",
    "4000000000000002": "pm_card_chargeDeclined",
    "4000000000009995": "pm_card_chargeDeclinedInsufficientFunds",
    "4000002500003155": "pm_card_authenticationRequired",
    "4000000000003220": "pm_card_threeDSecure2Required",
  };

  function FakeStripe(publishableKey: string) {
    let cardInput: HTMLInputElement | null = null;

    const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
    async function stripeApi(method: "GET" | "POST", path: string, fields: Record<string, string>): Promise<{ status: number; body: Json }> {
      const query = method === "GET" ? `?${form(fields)}` : "";
      const response = await fetch(`${standInUrl}${path}${query}`, {
        method,
        ...(method === "POST" ? { headers: { "content-type": "application/x-www-form-urlencoded" }, body: form(fields) } : {}),
      });
      return { status: response.status, body: (await response.json()) as Json };
    }

    /** The issuer's 3-D Secure challenge: resolves with the customer's answer. */
    function challenge(): Promise<boolean> {
      return new Promise((resolve) => {
        const dialog = document.createElement("div");
        dialog.setAttribute("role", "dialog");
        dialog.setAttribute("aria-label", "3-D Secure authentication");
        dialog.style.cssText = "position:fixed;inset:20%;background:#fff;border:1px solid #333;padding:16px;z-index:1000";
        const text = document.createElement("p");
        text.textContent = "Your bank asks you to confirm this payment.";
        dialog.append(text);
        for (const [label, succeed] of [
          ["Complete authentication", true],
          ["Fail authentication", false],
        ] as const) {
          const button = document.createElement("button");
          button.type = "button";
          button.textContent = label;
          button.addEventListener("click", () => {
            dialog.remove();
            resolve(succeed);
          });
          dialog.append(button);
        }
        document.body.append(dialog);
      });
    }

    const element = {
      listeners: new Map<string, Set<Listener>>(),
      container: null as HTMLElement | null,
      mount(target: string | HTMLElement) {
        const container = typeof target === "string" ? document.querySelector<HTMLElement>(target) : target;
        if (!container) throw new Error("fake Stripe.js: nothing to mount the Payment Element in");
        const label = document.createElement("label");
        label.textContent = "Card number";
        cardInput = document.createElement("input");
        cardInput.inputMode = "numeric";
        cardInput.autocomplete = "cc-number";
        label.append(cardInput);
        container.append(label);
        element.container = label;
        queueMicrotask(() => element.emit("ready", { elementType: "payment" }));
      },
      emit(event: string, payload: unknown) {
        for (const listener of element.listeners.get(event) ?? []) listener(payload);
      },
      on(event: string, listener: Listener) {
        if (!element.listeners.has(event)) element.listeners.set(event, new Set());
        element.listeners.get(event)!.add(listener);
        return element;
      },
      off(event: string, listener: Listener) {
        element.listeners.get(event)?.delete(listener);
        return element;
      },
      once(event: string, listener: Listener) {
        return element.on(event, listener);
      },
      update() {},
      focus() {
        cardInput?.focus();
      },
      blur() {},
      clear() {
        if (cardInput) cardInput.value = "";
      },
      collapse() {},
      unmount() {
        element.container?.remove();
      },
      destroy() {
        element.container?.remove();
      },
    };

    const cardMethod = () => CARDS[(cardInput?.value ?? "").replace(/\s+/g, "")] ?? null;

    const elements = {
      create(type: string) {
        if (type !== "payment") throw new Error(`fake Stripe.js: only the Payment Element, not ${type}`);
        return element;
      },
      getElement: () => element,
      update() {},
      fetchUpdates: async () => ({}),
      async submit() {
        if (cardMethod() === null) return { error: { type: "validation_error", code: "incomplete_number", message: "Your card number is incomplete." } };
        return {};
      },
    };

    async function confirmPayment({ clientSecret, confirmParams }: { clientSecret: string; confirmParams: { return_url: string } }) {
      const intentId = clientSecret.split("_secret_")[0]!;
      const auth = { key: publishableKey, client_secret: clientSecret };
      const paymentMethod = cardMethod();
      if (paymentMethod === null) return { error: { type: "validation_error", message: "Your card number is incomplete." } };
      const confirmed = await stripeApi("POST", `/v1/payment_intents/${intentId}/confirm`, { ...auth, payment_method: paymentMethod, return_url: confirmParams.return_url });
      if (confirmed.status !== 200) return { error: confirmed.body.error as Json };
      let intent = confirmed.body;
      if (intent.status === "requires_action") {
        const succeed = await challenge();
        // The issuer's answer reaches Stripe (the stand-in), which updates the intent and sends its webhook.
        await fetch(`${standInUrl}/_stand-in/payment_intents/${intentId}/complete_action`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ succeed }),
        });
        intent = (await stripeApi("GET", `/v1/payment_intents/${intentId}`, auth)).body;
      }
      if (intent.status === "succeeded" || intent.status === "processing" || intent.status === "requires_capture") {
        const back = new URL(confirmParams.return_url);
        back.searchParams.set("payment_intent", intentId);
        back.searchParams.set("payment_intent_client_secret", clientSecret);
        back.searchParams.set("redirect_status", intent.status === "processing" ? "pending" : "succeeded");
        window.location.assign(back.toString());
        // As Stripe.js: the page is leaving; the promise never settles.
        return new Promise<never>(() => {});
      }
      const error = (intent.last_payment_error as Json | null) ?? { message: "The payment did not go through." };
      return { error: { type: "card_error", ...error } };
    }

    /** As `confirmPayment`, for a SetupIntent (the portal's saved card): confirm, 3-D Secure, then the return URL with `setup_intent`. */
    async function confirmSetup({ clientSecret, confirmParams }: { clientSecret: string; confirmParams: { return_url: string } }) {
      const setupId = clientSecret.split("_secret_")[0]!;
      const auth = { key: publishableKey, client_secret: clientSecret };
      const paymentMethod = cardMethod();
      if (paymentMethod === null) return { error: { type: "validation_error", message: "Your card number is incomplete." } };
      const confirmed = await stripeApi("POST", `/v1/setup_intents/${setupId}/confirm`, { ...auth, payment_method: paymentMethod, return_url: confirmParams.return_url });
      if (confirmed.status !== 200) return { error: confirmed.body.error as Json };
      let setup = confirmed.body;
      if (setup.status === "requires_action") {
        const succeed = await challenge();
        await fetch(`${standInUrl}/_stand-in/setup_intents/${setupId}/complete_action`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ succeed }),
        });
        setup = (await stripeApi("GET", `/v1/setup_intents/${setupId}`, auth)).body;
      }
      if (setup.status === "succeeded" || setup.status === "processing") {
        const back = new URL(confirmParams.return_url);
        back.searchParams.set("setup_intent", setupId);
        back.searchParams.set("setup_intent_client_secret", clientSecret);
        back.searchParams.set("redirect_status", setup.status === "processing" ? "pending" : "succeeded");
        window.location.assign(back.toString());
        return new Promise<never>(() => {});
      }
      const error = (setup.last_setup_error as Json | null) ?? { message: "The card could not be saved." };
      return { error: { type: "card_error", ...error } };
    }

    const unsupported = async () => ({ error: { type: "invalid_request_error", message: "fake Stripe.js: not supported" } });
    return {
      elements: () => elements,
      confirmPayment,
      confirmSetup,
      createToken: unsupported,
      createPaymentMethod: unsupported,
      confirmCardPayment: unsupported,
      retrievePaymentIntent: async (clientSecret: string) => ({
        paymentIntent: (await stripeApi("GET", `/v1/payment_intents/${clientSecret.split("_secret_")[0]}`, { key: publishableKey, client_secret: clientSecret })).body,
      }),
      _registerWrapper() {},
      registerAppInfo() {},
    };
  }
  // The release train @stripe/stripe-js expects (it warns about another with a test key).
  (FakeStripe as unknown as { version: string }).version = "endive";
  (window as unknown as { Stripe: unknown }).Stripe = FakeStripe;
}
