/**
 * Runs sampled sequences on a property test's lanes side by side: each lane takes the next
 * sequence not yet taken until none is left. A failing sequence fails the run with its index, the
 * seed that replays it (`label`, e.g. `FC_SEED=7`) and the sequence itself.
 */
export async function runOnLanes<Lane, Sequence>(
  lanes: readonly Lane[],
  sequences: readonly Sequence[],
  label: string,
  run: (lane: Lane, sequence: Sequence) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    lanes.map(async (lane) => {
      while (next < sequences.length) {
        const index = next++;
        try {
          await run(lane, sequences[index]!);
        } catch (error) {
          throw new Error(`sequence ${index} (${label}): ${JSON.stringify(sequences[index])}\n${error instanceof Error ? error.message : String(error)}`, { cause: error });
        }
      }
    }),
  );
}
