"use client";

import { createContext, useContext, type ReactNode } from "react";
import { roleAllows, type Role } from "@/lib/auth/roles";

// Outside a dashboard page nothing is allowed: the safe default.
const RoleContext = createContext<Role>("viewer");

/** The signed-in user's role, for hiding what it cannot do (the server enforces it regardless). */
export function RoleProvider({ role, children }: { role: Role; children: ReactNode }) {
  return <RoleContext.Provider value={role}>{children}</RoleContext.Provider>;
}

/** Whether the signed-in user's role allows what needs `needed` (lib/auth/roles.ts). */
export function useCan(needed: Role): boolean {
  return roleAllows(useContext(RoleContext), needed);
}

/** Its children only for a role that allows `role`. */
export function Can({ role, children }: { role: Role; children: ReactNode }) {
  return useCan(role) ? children : null;
}
