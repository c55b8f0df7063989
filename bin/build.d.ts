/** Types for `bin/build.js` (plain JavaScript: it runs before anything is compiled). */
export declare const root: string;
export declare const dist: string;
export declare function buildState(): "missing" | "stale" | "current";
export declare function build(): void;
export declare function ensureBuilt(say?: (line: string) => void): Promise<void>;
