export const at = (): Date => new Date();
