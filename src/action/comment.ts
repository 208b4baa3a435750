/**
 * The pull-request comment of the GitHub Action: one comment per pull request, found by a hidden
 * marker and updated in place on every run, so that a busy pull request does not collect a plan per
 * push. Uses octokit's request (GitHub REST: issues comments), against `GITHUB_API_URL`.
 */

import { request } from "@octokit/request";

/** Hidden marker that identifies carte's comment. */
export const COMMENT_MARKER = "<!-- carte-plan -->";

/** Where the comment goes. */
export interface CommentTarget {
  /** GitHub API base address, `GITHUB_API_URL` (https://api.github.com on github.com). */
  apiUrl: string;
  /** `owner/repo`. */
  repository: string;
  /** Pull request (issue) number. */
  number: number;
  /** A token with `pull-requests: write` (or `issues: write`). Never printed. */
  token: string;
}

/**
 * Creates or updates carte's comment on the pull request with `body` (the marker is added). Returns
 * whether an existing comment was updated. Throws the octokit error (status, message) on failure.
 */
export async function upsertComment(
  target: CommentTarget,
  body: string,
): Promise<{ updated: boolean; id: number }> {
  const [owner, repo] = target.repository.split("/");
  if (!owner || !repo) throw new Error(`GITHUB_REPOSITORY must be owner/repo, got ${target.repository}`);
  const api = request.defaults({
    baseUrl: target.apiUrl,
    headers: { authorization: `token ${target.token}`, "x-github-api-version": "2022-11-28" },
  });
  const text = `${COMMENT_MARKER}\n${body}`;
  for (let page = 1; page <= 50; page++) {
    const res = await api("GET /repos/{owner}/{repo}/issues/{issue_number}/comments", {
      owner,
      repo,
      issue_number: target.number,
      per_page: 100,
      page,
    });
    const comments = res.data as { id: number; body?: string }[];
    const mine = comments.find((c) => c.body?.startsWith(COMMENT_MARKER));
    if (mine) {
      await api("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", {
        owner,
        repo,
        comment_id: mine.id,
        body: text,
      });
      return { updated: true, id: mine.id };
    }
    if (comments.length < 100) break;
  }
  const created = await api("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
    owner,
    repo,
    issue_number: target.number,
    body: text,
  });
  return { updated: false, id: (created.data as { id: number }).id };
}
