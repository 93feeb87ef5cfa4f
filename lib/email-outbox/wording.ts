import type { EmailType } from "./types";

/** The languages of the emails: the invoice documents' (lib/account-settings/schema.ts LOCALES). */
export type EmailLocale = "en" | "fr" | "de";

export function emailLocale(value: unknown): EmailLocale {
  return value === "fr" || value === "de" ? value : "en";
}

type Words = { subject: (seller: string, number: string) => string; heading: string; body: string; button: string };

/** Each type's words per language; `number` is the invoice's or credit note's number. */
export const WORDING: Record<EmailLocale, Record<EmailType, Words>> = {
  en: {
    invoice: {
      subject: (seller, number) => `Invoice ${number} from ${seller}`,
      heading: "Your invoice",
      body: "Your invoice is attached. You can view and pay it online.",
      button: "View invoice",
    },
    receipt: {
      subject: (seller, number) => `Your receipt from ${seller} (invoice ${number})`,
      heading: "Payment received",
      body: "Thank you: we received your payment. The paid invoice is attached.",
      button: "View receipt",
    },
    payment_failed: {
      subject: (seller, number) => `Your payment to ${seller} failed (invoice ${number})`,
      heading: "Your payment failed",
      body: "We could not collect the payment of this invoice. Please update your payment method.",
      button: "Pay invoice",
    },
    payment_action_required: {
      subject: (seller, number) => `Action required: confirm your payment to ${seller} (invoice ${number})`,
      heading: "Confirm your payment",
      body: "Your bank needs you to confirm the payment of this invoice. Open the invoice to complete it.",
      button: "Confirm payment",
    },
    final_notice: {
      subject: (seller, number) => `Final notice: invoice ${number} from ${seller} is unpaid`,
      heading: "Final notice",
      body: "We tried to collect this invoice several times and every attempt failed. It is now marked uncollectible and the subscription it billed is cancelled. You can still pay it online.",
      button: "Pay invoice",
    },
    credit_note: {
      subject: (seller, number) => `Credit note ${number} from ${seller}`,
      heading: "Credit note issued",
      body: "A credit note was issued for your invoice. It is attached.",
      button: "View invoice",
    },
    trial_ending: {
      subject: (seller) => `Your ${seller} trial ends soon`,
      heading: "Your trial ends soon",
      body: "Your trial ends on the date below; your subscription then continues and is billed.",
      button: "Open",
    },
    upcoming_renewal: {
      subject: (seller) => `Your ${seller} subscription renews soon`,
      heading: "Your subscription renews soon",
      body: "Your subscription renews on the date below, for the amount shown.",
      button: "Open",
    },
    subscription_cancelled: {
      subject: (seller) => `Your ${seller} subscription was cancelled`,
      heading: "Subscription cancelled",
      body: "Your subscription was cancelled. You will not be billed for it again.",
      button: "Open",
    },
    portal_link: {
      subject: (seller) => `Your sign-in link for ${seller}`,
      heading: "Sign in to your billing portal",
      body: "Use this link to sign in. It works once and expires soon.",
      button: "Sign in",
    },
    test: {
      subject: (seller) => `Test email from ${seller}`,
      heading: "It works",
      body: "This is a test email: your email settings deliver.",
      button: "Open",
    },
  },
  fr: {
    invoice: {
      subject: (seller, number) => `Facture ${number} de ${seller}`,
      heading: "Votre facture",
      body: "Votre facture est jointe. Vous pouvez la consulter et la payer en ligne.",
      button: "Voir la facture",
    },
    receipt: {
      subject: (seller, number) => `Votre reçu de ${seller} (facture ${number})`,
      heading: "Paiement reçu",
      body: "Merci : nous avons reçu votre paiement. La facture acquittée est jointe.",
      button: "Voir le reçu",
    },
    payment_failed: {
      subject: (seller, number) => `Votre paiement à ${seller} a échoué (facture ${number})`,
      heading: "Votre paiement a échoué",
      body: "Nous n'avons pas pu encaisser le paiement de cette facture. Veuillez mettre à jour votre moyen de paiement.",
      button: "Payer la facture",
    },
    payment_action_required: {
      subject: (seller, number) => `Action requise : confirmez votre paiement à ${seller} (facture ${number})`,
      heading: "Confirmez votre paiement",
      body: "Votre banque vous demande de confirmer le paiement de cette facture. Ouvrez la facture pour le terminer.",
      button: "Confirmer le paiement",
    },
    final_notice: {
      subject: (seller, number) => `Dernier avis : la facture ${number} de ${seller} est impayée`,
      heading: "Dernier avis",
      body: "Nous avons tenté plusieurs fois d'encaisser cette facture, sans succès. Elle est désormais classée irrécouvrable et l'abonnement qu'elle facturait est résilié. Vous pouvez encore la payer en ligne.",
      button: "Payer la facture",
    },
    credit_note: {
      subject: (seller, number) => `Avoir ${number} de ${seller}`,
      heading: "Avoir émis",
      body: "Un avoir a été émis pour votre facture. Il est joint.",
      button: "Voir la facture",
    },
    trial_ending: {
      subject: (seller) => `Votre essai ${seller} se termine bientôt`,
      heading: "Votre essai se termine bientôt",
      body: "Votre essai se termine à la date ci-dessous ; votre abonnement continue ensuite et est facturé.",
      button: "Ouvrir",
    },
    upcoming_renewal: {
      subject: (seller) => `Votre abonnement ${seller} se renouvelle bientôt`,
      heading: "Votre abonnement se renouvelle bientôt",
      body: "Votre abonnement se renouvelle à la date ci-dessous, pour le montant indiqué.",
      button: "Ouvrir",
    },
    subscription_cancelled: {
      subject: (seller) => `Votre abonnement ${seller} a été résilié`,
      heading: "Abonnement résilié",
      body: "Votre abonnement a été résilié. Il ne vous sera plus facturé.",
      button: "Ouvrir",
    },
    portal_link: {
      subject: (seller) => `Votre lien de connexion à ${seller}`,
      heading: "Connexion à votre espace de facturation",
      body: "Utilisez ce lien pour vous connecter. Il ne sert qu'une fois et expire bientôt.",
      button: "Se connecter",
    },
    test: {
      subject: (seller) => `E-mail de test de ${seller}`,
      heading: "Ça marche",
      body: "Ceci est un e-mail de test : vos réglages d'envoi fonctionnent.",
      button: "Ouvrir",
    },
  },
  de: {
    invoice: {
      subject: (seller, number) => `Rechnung ${number} von ${seller}`,
      heading: "Ihre Rechnung",
      body: "Ihre Rechnung ist angehängt. Sie können sie online ansehen und bezahlen.",
      button: "Rechnung ansehen",
    },
    receipt: {
      subject: (seller, number) => `Ihre Quittung von ${seller} (Rechnung ${number})`,
      heading: "Zahlung erhalten",
      body: "Vielen Dank: Wir haben Ihre Zahlung erhalten. Die bezahlte Rechnung ist angehängt.",
      button: "Quittung ansehen",
    },
    payment_failed: {
      subject: (seller, number) => `Ihre Zahlung an ${seller} ist fehlgeschlagen (Rechnung ${number})`,
      heading: "Ihre Zahlung ist fehlgeschlagen",
      body: "Wir konnten die Zahlung dieser Rechnung nicht einziehen. Bitte aktualisieren Sie Ihre Zahlungsmethode.",
      button: "Rechnung bezahlen",
    },
    payment_action_required: {
      subject: (seller, number) => `Aktion erforderlich: Bestätigen Sie Ihre Zahlung an ${seller} (Rechnung ${number})`,
      heading: "Bestätigen Sie Ihre Zahlung",
      body: "Ihre Bank bittet Sie, die Zahlung dieser Rechnung zu bestätigen. Öffnen Sie die Rechnung, um sie abzuschließen.",
      button: "Zahlung bestätigen",
    },
    final_notice: {
      subject: (seller, number) => `Letzte Mahnung: Rechnung ${number} von ${seller} ist unbezahlt`,
      heading: "Letzte Mahnung",
      body: "Wir haben mehrmals versucht, diese Rechnung einzuziehen, ohne Erfolg. Sie gilt nun als uneinbringlich, und das damit abgerechnete Abonnement ist gekündigt. Sie können sie weiterhin online bezahlen.",
      button: "Rechnung bezahlen",
    },
    credit_note: {
      subject: (seller, number) => `Gutschrift ${number} von ${seller}`,
      heading: "Gutschrift ausgestellt",
      body: "Für Ihre Rechnung wurde eine Gutschrift ausgestellt. Sie ist angehängt.",
      button: "Rechnung ansehen",
    },
    trial_ending: {
      subject: (seller) => `Ihr Testzeitraum bei ${seller} endet bald`,
      heading: "Ihr Testzeitraum endet bald",
      body: "Ihr Testzeitraum endet am unten genannten Datum; danach läuft Ihr Abonnement weiter und wird berechnet.",
      button: "Öffnen",
    },
    upcoming_renewal: {
      subject: (seller) => `Ihr Abonnement bei ${seller} verlängert sich bald`,
      heading: "Ihr Abonnement verlängert sich bald",
      body: "Ihr Abonnement verlängert sich am unten genannten Datum um den angegebenen Betrag.",
      button: "Öffnen",
    },
    subscription_cancelled: {
      subject: (seller) => `Ihr Abonnement bei ${seller} wurde gekündigt`,
      heading: "Abonnement gekündigt",
      body: "Ihr Abonnement wurde gekündigt. Es wird Ihnen nicht mehr berechnet.",
      button: "Öffnen",
    },
    portal_link: {
      subject: (seller) => `Ihr Anmeldelink für ${seller}`,
      heading: "Anmeldung im Abrechnungsportal",
      body: "Melden Sie sich mit diesem Link an. Er gilt einmal und läuft bald ab.",
      button: "Anmelden",
    },
    test: {
      subject: (seller) => `Test-E-Mail von ${seller}`,
      heading: "Es funktioniert",
      body: "Dies ist eine Test-E-Mail: Ihre E-Mail-Einstellungen funktionieren.",
      button: "Öffnen",
    },
  },
};

/** A subject never carries a line break (header injection): whatever the seller's name holds. */
export function subjectOf(locale: EmailLocale, type: EmailType, seller: string, number: string): string {
  return WORDING[locale][type].subject(seller, number).replace(/[\r\n]+/g, " ");
}
