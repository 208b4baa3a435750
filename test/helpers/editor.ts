/**
 * What an editor shows for a YAML file: the diagnostics of yaml-language-server (the language server
 * behind VS Code's YAML extension, Neovim's yamlls and others), run in-process on the file as it is on
 * disk. The schema comes from the file's own `# yaml-language-server: $schema=…` line, resolved against
 * the file's location exactly as the server does; schemas are read from disk, never from the network.
 */

import { readFile } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { TextDocument } from "vscode-languageserver-textdocument";
import { getLanguageService, type Diagnostic } from "yaml-language-server";

/**
 * The version given to each document: yaml-language-server keeps parsed documents in a module-wide
 * cache by address and version, so the same file read again after an edit needs a new version.
 */
let version = 0;

/** A diagnostic as a person reads it: 1-based line, the message. */
export interface EditorProblem {
  line: number;
  message: string;
}

/** Diagnostics of a file and the schema files the server read to produce them. */
export interface EditorReport {
  problems: EditorProblem[];
  /** Absolute paths of the schema files read, in order. */
  schemasRead: string[];
}

/**
 * Validates `file` (absolute) as an editor with yaml-language-server would.
 *
 * @throws when the server asks for a schema that is not a local file (the test has no network).
 */
export async function editorDiagnostics(file: string): Promise<EditorReport> {
  const schemasRead: string[] = [];
  const service = getLanguageService({
    schemaRequestService: async (uri: string) => {
      if (!uri.startsWith("file:")) throw new Error(`the editor asked for a schema at ${uri}`);
      const path = fileURLToPath(uri);
      schemasRead.push(path);
      return readFile(path, "utf8");
    },
    workspaceContext: { resolveRelativePath: (relative, resource) => new URL(relative, resource).href },
  });
  service.configure({ validate: true, completion: false, hover: false, format: false });
  const doc = TextDocument.create(pathToFileURL(file).href, "yaml", ++version, await readFile(file, "utf8"));
  const diagnostics: Diagnostic[] = await service.doValidation(doc, false);
  return {
    problems: diagnostics.map((d) => ({
      line: d.range.start.line + 1,
      message: typeof d.message === "string" ? d.message : d.message.value,
    })),
    schemasRead,
  };
}
