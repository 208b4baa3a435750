/**
 * The few GitHub REST calls the Action makes (octokit's request, API version 2022-11-28, against
 * `GITHUB_API_URL`): issue comments (the pull request's sticky comments), the pull requests of a
 * commit (which pull request a push merged), and issues (the drift issue). Every list is read page by
 * page, 100 at a time, at most 50 pages.
 *
 * Only comments and issues written by the expected author (the login of the Action's token,
 * `github-actions[bot]` for the workflow's `GITHUB_TOKEN`) are ever taken for carte's: anyone can post
 * a comment that starts with carte's marker, and a planted "reviewed plan" must never be applied.
 */

import { request } from "@octokit/request";
import { UsageError } from "../errors.js";

/** The login of the workflow's `GITHUB_TOKEN`. */
export const DEFAULT_BOT_LOGIN = "github-actions[bot]";

/** Where the calls go and as whom. */
export interface RepoTarget {
  /** GitHub API base address, `GITHUB_API_URL` (https://api.github.com on github.com). */
  apiUrl: string;
  /** `owner/repo`. */
  repository: string;
  /** A token; never printed. */
  token: string;
}

/** An issue or pull-request comment (the fields carte reads). */
export interface IssueComment {
  id: number;
  body?: string | null;
  user?: { login?: string } | null;
}

/** An issue (the fields carte reads). */
export interface Issue {
  number: number;
  title?: string;
  body?: string | null;
  state?: string;
  user?: { login?: string } | null;
  /** Present when the "issue" is a pull request. */
  pull_request?: unknown;
}

/** A pull request as `GET /repos/{owner}/{repo}/commits/{sha}/pulls` lists it (the fields carte reads). */
export interface PullOfCommit {
  number: number;
  state?: string;
  merged_at?: string | null;
  head?: { sha?: string };
  base?: { ref?: string };
}

const PAGE = 100;
const MAX_PAGES = 50;

/** The REST calls of one repository. Each rejects with octokit's error (status, message) on failure. */
export class GitHubRepo {
  private readonly owner: string;
  private readonly repo: string;
  private readonly api: typeof request;

  /** Throws {@link UsageError} when `repository` is not `owner/repo`. */
  constructor(target: RepoTarget) {
    const [owner, repo, extra] = target.repository.split("/");
    if (!owner || !repo || extra !== undefined)
      throw new UsageError(`GITHUB_REPOSITORY must be owner/repo, got ${target.repository}`);
    this.owner = owner;
    this.repo = repo;
    this.api = request.defaults({
      baseUrl: target.apiUrl,
      headers: { authorization: `token ${target.token}`, "x-github-api-version": "2022-11-28" },
    });
  }

  /** Every comment of an issue or pull request, oldest first. */
  async comments(issue: number): Promise<IssueComment[]> {
    const all: IssueComment[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const res = await this.api("GET /repos/{owner}/{repo}/issues/{issue_number}/comments", {
        owner: this.owner,
        repo: this.repo,
        issue_number: issue,
        per_page: PAGE,
        page,
      });
      const list = res.data as IssueComment[];
      all.push(...list);
      if (list.length < PAGE) break;
    }
    return all;
  }

  /** Creates a comment; returns its id. */
  async createComment(issue: number, body: string): Promise<number> {
    const res = await this.api("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
      owner: this.owner,
      repo: this.repo,
      issue_number: issue,
      body,
    });
    return (res.data as { id: number }).id;
  }

  /** Replaces a comment's body. */
  async updateComment(id: number, body: string): Promise<void> {
    await this.api("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", {
      owner: this.owner,
      repo: this.repo,
      comment_id: id,
      body,
    });
  }

  /** The pull requests a commit belongs to (for a merge commit: the pull request it merged). */
  async pullsOfCommit(sha: string): Promise<PullOfCommit[]> {
    const res = await this.api("GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls", {
      owner: this.owner,
      repo: this.repo,
      commit_sha: sha,
      per_page: PAGE,
    });
    return res.data as PullOfCommit[];
  }

  /** The open issues with a label (pull requests left out). */
  async openIssues(label: string): Promise<Issue[]> {
    const all: Issue[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const res = await this.api("GET /repos/{owner}/{repo}/issues", {
        owner: this.owner,
        repo: this.repo,
        labels: label,
        state: "open",
        per_page: PAGE,
        page,
      });
      const list = res.data as Issue[];
      all.push(...list.filter((i) => i.pull_request === undefined));
      if (list.length < PAGE) break;
    }
    return all;
  }

  /** Opens an issue; returns its number. */
  async createIssue(issue: { title: string; body: string; labels: string[] }): Promise<number> {
    const res = await this.api("POST /repos/{owner}/{repo}/issues", {
      owner: this.owner,
      repo: this.repo,
      ...issue,
    });
    return (res.data as { number: number }).number;
  }

  /** Changes an issue: title, body, or closes it (`state: "closed"`, `state_reason: "completed"`). */
  async updateIssue(
    number: number,
    fields: { title?: string; body?: string; state?: "open" | "closed"; state_reason?: "completed" },
  ): Promise<void> {
    await this.api("PATCH /repos/{owner}/{repo}/issues/{issue_number}", {
      owner: this.owner,
      repo: this.repo,
      issue_number: number,
      ...fields,
    });
  }
}

/** Whether a comment or issue is carte's: written by `author` and starting with `marker`. */
export function isCartes(
  item: { body?: string | null; user?: { login?: string } | null },
  marker: string,
  author: string,
): boolean {
  return item.user?.login === author && (item.body ?? "").startsWith(marker);
}

/**
 * Creates or updates carte's comment with `marker` on an issue or pull request (the first one by
 * `author`). The body is prefixed with the marker. `known`: the issue's comments, when the caller has
 * just read them (they are not read again). Returns whether an existing comment was updated.
 */
export async function upsertMarkedComment(
  gh: GitHubRepo,
  issue: number,
  marker: string,
  author: string,
  body: string,
  known?: readonly IssueComment[],
): Promise<{ updated: boolean; id: number }> {
  const text = `${marker}\n${body}`;
  const mine = (known ?? (await gh.comments(issue))).find((c) => isCartes(c, marker, author));
  if (mine) {
    await gh.updateComment(mine.id, text);
    return { updated: true, id: mine.id };
  }
  return { updated: false, id: await gh.createComment(issue, text) };
}
