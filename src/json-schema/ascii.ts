/**
 * Generated validator modules (ajv's standalone code, written at build time for the configuration
 * files and the platform's answers) kept in ASCII.
 */

/**
 * JavaScript source with every character beyond ASCII written as a `\uXXXX` escape (one per UTF-16
 * unit). ajv's generated code holds such characters only in string literals and regular expressions
 * (the schemas' descriptions, examples and patterns), where the escape means the same character. A
 * module in ASCII is decoded at Node.js's fastest and kept by V8 at one byte a character, where one
 * character beyond ASCII doubles the whole source (as for the CLI's bundle, scripts/build-cli.mjs).
 */
export function asciiSource(source: string): string {
  return source.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
