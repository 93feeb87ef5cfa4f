import { describe, expect, it } from "vitest";
import { tlsModeOf } from "@/db/watchdog";

describe("the TLS the database URL asks for (db/watchdog.ts negotiates it)", () => {
  it("reads sslmode as postgres.js does", () => {
    expect(tlsModeOf("postgres://u@h/db")).toEqual({ mode: false, direct: false });
    expect(tlsModeOf("postgres://u@h/db?sslmode=disable")).toEqual({ mode: false, direct: false });
    expect(tlsModeOf("postgres://u@h/db?sslmode=require")).toEqual({ mode: "require", direct: false });
    expect(tlsModeOf("postgres://u@h/db?sslmode=verify-full&sslnegotiation=direct")).toEqual({ mode: "verify-full", direct: true });
    expect(tlsModeOf("postgres://u@h/db?sslrootcert=system")).toEqual({ mode: "verify-full", direct: false });
    // postgres.js verifies the certificate for ssl=true.
    expect(tlsModeOf("postgres://u@h/db?ssl=true")).toEqual({ mode: "verify-full", direct: false });
  });
});
