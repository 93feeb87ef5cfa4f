"use client";

import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import {
  changeMemberRoleAction,
  createInvitationAction,
  removeMemberAction,
  revokeInvitationAction,
  revokeMemberTokenAction,
} from "@/app/accounts/[account_id]/settings/actions";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Button, Card, Field, ShownOnce, StatusBadge, Table, formatTime, inputClass } from "@/components/ui";
import { ROLES, ROLE_DESCRIPTIONS, ROLE_LABELS, roleAllows, type Role } from "@/lib/auth/roles";

type MemberRow = { id: string; email: string; name: string | null; role: Role; created: string };
type InvitationRow = { id: string; email: string; role: Role; created: string; expiresAt: string; status: "pending" | "expired" };
type Outcome = { ok: true } | { ok: false; message: string };
/** An active token whose maker was removed, or now holds a role that could not mint it (lib/teams/member-tokens.ts). */
type OutrankingTokenRow = {
  id: string;
  livemode: boolean;
  name: string;
  kind: "secret" | "publishable" | "restricted";
  display: string;
  creatorRole: Role | null;
  creatorEmail: string | null;
};

/** Members and invitations. Actions a role cannot take are not shown; the server checks them anyway. */
export function MembersSection({
  currentUserId,
  role,
  members,
  invitations,
  outrankingTokens,
}: {
  currentUserId: string;
  role: Role;
  members: MemberRow[];
  invitations: InvitationRow[];
  outrankingTokens: OutrankingTokenRow[];
}) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [removing, setRemoving] = useState<MemberRow | null>(null);
  const [revokeTheirTokens, setRevokeTheirTokens] = useState(true);
  const [busy, setBusy] = useState(false);
  const manages = roleAllows(role, "admin");
  // Admins assign up to admin; owners also make owners.
  const assignable = ROLES.filter((candidate) => candidate !== "owner" || role === "owner");

  async function run(action: () => Promise<Outcome>): Promise<boolean> {
    setBusy(true);
    setError(null);
    const outcome = await action();
    setBusy(false);
    if (!outcome.ok) {
      setError(outcome.message);
      return false;
    }
    router.refresh();
    return true;
  }

  return (
    <Card title="Members">
      <p className="mb-3 text-sm text-slate-600">
        Your role: <strong data-testid="current-role">{ROLE_LABELS[role]}</strong> — {ROLE_DESCRIPTIONS[role]}
      </p>
      {error && (
        <p role="alert" className="mb-3 text-sm text-red-700">
          {error}
        </p>
      )}
      <Table label="Members" head={["Member", "Role", "Joined", ""]}>
        {members.map((member) => {
          const editable = manages && (member.role !== "owner" || role === "owner");
          return (
            <tr key={member.id}>
              <td className="px-2 py-2">
                <span className="block font-medium">{member.name ?? member.email}</span>
                <span className="block text-xs text-slate-500">{member.email}</span>
              </td>
              <td className="px-2 py-2">
                {editable ? (
                  <select
                    aria-label={`Role of ${member.email}`}
                    className={`${inputClass} w-auto`}
                    value={member.role}
                    disabled={busy}
                    onChange={(event) => void run(() => changeMemberRoleAction({ userId: member.id, role: event.target.value }))}
                  >
                    {assignable.map((option) => (
                      <option key={option} value={option}>
                        {ROLE_LABELS[option]}
                      </option>
                    ))}
                  </select>
                ) : (
                  ROLE_LABELS[member.role]
                )}
              </td>
              <td className="px-2 py-2 text-slate-600">
                <LocalTime iso={member.created} />
              </td>
              <td className="px-2 py-2 text-right">
                {editable && member.id !== currentUserId && (
                  <Button variant="secondary" disabled={busy} onClick={() => setRemoving(member)}>
                    Remove
                  </Button>
                )}
              </td>
            </tr>
          );
        })}
      </Table>

      {outrankingTokens.length > 0 && (
        <>
          <h3 className="mb-2 mt-6 text-sm font-semibold">Tokens made by removed or demoted members</h3>
          <p className="mb-2 text-sm text-slate-600">
            These API tokens still work, but their maker could no longer create them. Revoke the ones you do not need.
          </p>
          <Table label="Tokens made by removed or demoted members" head={["Token", "Made by", "Mode", ""]}>
            {outrankingTokens.map((token) => (
              <tr key={token.id}>
                <td className="px-2 py-2">
                  <span className="block font-medium">{token.name}</span>
                  <span className="block font-mono text-xs text-slate-500">
                    {token.display} · {token.kind}
                  </span>
                </td>
                <td className="px-2 py-2">
                  {token.creatorEmail ? `${token.creatorEmail} (now ${ROLE_LABELS[token.creatorRole ?? "viewer"]})` : "a removed member"}
                </td>
                <td className="px-2 py-2">{token.livemode ? "live" : "sandbox"}</td>
                <td className="px-2 py-2 text-right">
                  {roleAllows(role, "developer") && (
                    <Button
                      variant="secondary"
                      disabled={busy}
                      onClick={() => void run(() => revokeMemberTokenAction({ tokenId: token.id }))}
                      aria-label={`Revoke the token ${token.name}`}
                    >
                      Revoke
                    </Button>
                  )}
                </td>
              </tr>
            ))}
          </Table>
        </>
      )}

      <h3 className="mb-2 mt-6 text-sm font-semibold">Invitations</h3>
      {invitations.length === 0 ? (
        <p className="text-sm text-slate-500">No open invitations.</p>
      ) : (
        <Table label="Invitations" head={["Email", "Role", "Expires", "Status", ""]}>
          {invitations.map((invitation) => (
            <tr key={invitation.id}>
              <td className="px-2 py-2">{invitation.email}</td>
              <td className="px-2 py-2">{ROLE_LABELS[invitation.role]}</td>
              <td className="px-2 py-2 text-slate-600">
                <LocalTime iso={invitation.expiresAt} />
              </td>
              <td className="px-2 py-2">
                <StatusBadge status={invitation.status === "pending" ? "pending" : "revoked"} label={invitation.status} />
              </td>
              <td className="px-2 py-2 text-right">
                {manages && (
                  <Button
                    variant="secondary"
                    disabled={busy}
                    onClick={() => void run(() => revokeInvitationAction({ invitationId: invitation.id }))}
                    aria-label={`Revoke the invitation of ${invitation.email}`}
                  >
                    Revoke
                  </Button>
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
      {manages && <InviteForm assignable={assignable} onCreated={() => router.refresh()} />}

      {removing && (
        <ConfirmDialog
          title={`Remove ${removing.email}?`}
          confirmLabel="Remove member"
          busy={busy}
          onCancel={() => setRemoving(null)}
          onConfirm={() =>
            void run(() => removeMemberAction({ userId: removing.id, revokeTokens: revokeTheirTokens })).then((done) => {
              if (done) setRemoving(null);
            })
          }
        >
          They are signed out at once and can no longer sign in to this organization.
          <label className="mt-3 flex items-center gap-2 text-sm">
            <input type="checkbox" checked={revokeTheirTokens} onChange={(event) => setRevokeTheirTokens(event.target.checked)} />
            Revoke their tokens (every API token they made)
          </label>
        </ConfirmDialog>
      )}
    </Card>
  );
}

/** Rendered on the server first: the browser's time zone may word it differently, which is fine. */
function LocalTime({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={iso} suppressHydrationWarning>
      {formatTime(iso)}
    </time>
  );
}

function InviteForm({ assignable, onCreated }: { assignable: Role[]; onCreated: () => void }) {
  const [link, setLink] = useState<string | null>(null);
  const [failure, setFailure] = useState<{ message: string; errors: { field: string; message: string }[] } | null>(null);
  const [pending, setPending] = useState(false);
  const fieldError = (field: string) => failure?.errors.find((error) => error.field === field)?.message;

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    setPending(true);
    setFailure(null);
    setLink(null);
    const result = await createInvitationAction({ email: String(form.get("email")), role: String(form.get("role")) });
    setPending(false);
    if (!result.ok) return setFailure(result);
    setLink(new URL(result.path, window.location.origin).toString());
    formElement.reset();
    onCreated();
  }

  return (
    <form onSubmit={submit} method="post" className="mt-6 space-y-3" noValidate aria-label="Invite a member">
      <h3 className="text-sm font-semibold">Invite a member</h3>
      <div className="flex flex-wrap items-end gap-3">
        <div className="min-w-[14rem] flex-1">
          <Field label="Email" error={fieldError("email")}>
            <input name="email" type="email" required className={inputClass} />
          </Field>
        </div>
        <Field label="Role" error={fieldError("role")}>
          <select name="role" defaultValue="developer" className={inputClass}>
            {assignable.map((option) => (
              <option key={option} value={option}>
                {ROLE_LABELS[option]}
              </option>
            ))}
          </select>
        </Field>
        <Button type="submit" disabled={pending}>
          {pending ? "Creating…" : "Create invitation"}
        </Button>
      </div>
      {failure && failure.errors.length === 0 && (
        <p role="alert" className="text-sm text-red-700">
          {failure.message}
        </p>
      )}
      {link && <ShownOnce label="Invitation link (single use, valid 7 days)" value={link} />}
    </form>
  );
}
