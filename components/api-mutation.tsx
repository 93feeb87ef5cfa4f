"use client";

import { useMutation, useQueryClient, type UseMutationResult } from "@tanstack/react-query";
import { ErrorBox } from "@/components/ui";
import { splitFormError } from "@/components/ui/form-errors";

/** Queries a change may have touched: their keys (prefixes), or a test of a key. */
export type Refresh = readonly (readonly unknown[])[] | ((queryKey: readonly unknown[]) => boolean);

export type ApiMutation<Variables, Result, Field extends string> = UseMutationResult<Result, Error, Variables> & {
  /** The problem body's `errors[]` for the caller's own fields, each to show beside its field. */
  fieldErrors: Partial<Record<Field, string>>;
  /** Whatever is left of a failure to show (MutationError): null when every problem has a field. */
  otherError: unknown;
};

/**
 * The dashboard's one way to change something through the API (every form and action, ApiForm and
 * ApiAction included): the pending state, the problem body's field errors apart from the rest, and
 * the refresh of what the change touched once it succeeded.
 */
export function useApiMutation<Variables = void, Result = unknown, Field extends string = never>(options: {
  /** The call: a dashboardCall (or dashboardSubmit) of one operation. */
  call: (variables: Variables) => Promise<Result>;
  /** Right after success, before the refresh: close a dialog, put the answer in the cache. */
  onAnswer?: (result: Result, variables: Variables) => void;
  /** Refetched after success. */
  refresh?: Refresh;
  /** Refresh without waiting (the mutation is done at once); by default it is pending until the refresh is. */
  refreshInBackground?: boolean;
  /** After the refresh: what follows from the answer (navigate, show a confirmation). */
  onSuccess?: (result: Result, variables: Variables) => unknown;
  onSettled?: () => void;
  /** The caller's own fields, whose problems show beside them (`fieldErrors`). */
  fields?: readonly Field[];
}): ApiMutation<Variables, Result, Field> {
  const queryClient = useQueryClient();
  const { call, onAnswer, refresh = [], refreshInBackground = false, onSuccess, onSettled, fields = [] } = options;
  const mutation = useMutation<Result, Error, Variables>({
    mutationFn: call,
    onSettled,
    onSuccess: async (result, variables) => {
      onAnswer?.(result, variables);
      const refreshed =
        typeof refresh === "function"
          ? queryClient.invalidateQueries({ predicate: (query) => refresh(query.queryKey) })
          : Promise.all(refresh.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
      if (!refreshInBackground) await refreshed;
      await onSuccess?.(result, variables);
    },
  });
  const split = splitFormError(mutation.error, fields);
  return { ...mutation, fieldErrors: split.fields, otherError: split.other };
}

/** The one display of a failed change: what no field shows, with the request id. */
export function MutationError({ mutation }: { mutation: { otherError: unknown } }) {
  return mutation.otherError ? <ErrorBox error={mutation.otherError} /> : null;
}
