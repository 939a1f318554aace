import { isReadOnlyMethod } from "../policy/readOnlyMethods.js";
import type { NetworkGuard } from "./networkGuard.js";
import { originOf } from "./originOf.js";
import type { SecretEgressGuard } from "./secretEgressGuard.js";
import { sessionLeakReason } from "./sessionLeakReason.js";

/** What a request carries beside its URL, as the hook sees it before it is sent. */
export interface CarriedContent {
  headers?: Record<string, string>;
  body?: Buffer | string | null;
}

/**
 * Content a hook cannot see (a WebSocket handshake's cookies, a body the browser withheld): `why`
 * completes "…, and the secret NAME is not bound to ORIGIN" in the refusal's reason.
 */
export interface UnseenContent {
  unseen: string;
}

/** How a request leaves the browser, for the words of a refusal's reason. */
export type RequestPath = "request" | "redirect" | "socket message" | "unload";

/** One request a hook is about to let go, or one it sees leave. */
export interface RequestToJudge {
  url: string;
  method: string;
  /** A top-level navigation (the main frame's, a popup's, or a redirect hop of one): it must stay on the task's hosts. */
  navigation: boolean;
  /** Its headers and body for the typed-secret rule, or why the hook cannot see them (then the origin alone decides). */
  carries: CarriedContent | UnseenContent;
  /** Which hook saw it: picks the words of the reason, never the verdict. */
  via: RequestPath;
}

/** The rules of one browser session: the attempt's, or a login handoff's. */
export interface RequestRules {
  /** The network policy narrowed to the task (layer 2: the per-request check without DNS). */
  guard: Pick<NetworkGuard, "checkRequest">;
  /** The task's hosts (target and allowedHosts): the only hosts a top-level navigation may reach. */
  onTaskHosts: (url: string) => boolean;
  /** A read_only task: only GET, HEAD and OPTIONS leave. */
  readOnly: boolean;
  /** The secrets typed so far and the sites each is bound to. */
  secretEgress: SecretEgressGuard;
  /** A site task's origins: another origin on one of their hosts would be sent the site's cookies. */
  siteOrigins?: readonly string[];
}

/** Which rule refused a request, in the order they are checked. */
export type RequestRule = "policy" | "hosts" | "site" | "secret" | "method";

/** A request judgeRequest refused, and by which rule. */
export interface RefusedRequest {
  allowed: false;
  rule: RequestRule;
  /** The error code the receipt records (network.blocked[].code, and error.code when it stops the page). */
  code: string;
  /** Why, in one sentence; it names the page-chosen address, so the receipt wraps it as untrusted. */
  reason: string;
  /** The secret the request would have taken elsewhere (rule "secret"). */
  secret?: string;
}

export type RequestVerdict =
  | {
      allowed: true;
      /** The request carries a typed secret (to one of its own sites): errand sends it hop by hop. */
      carriesSecret: boolean;
      /** Its method is not a read-only one: in a write task it crosses the mutation boundary first. */
      writes: boolean;
    }
  | RefusedRequest;

/**
 * May this request go? Every browser hook (route, redirect hops, WebSockets, the unload guard,
 * downloads) asks here, so the rules and their order live in one place:
 *
 * 1. policy: the network policy's per-request check (scheme, userinfo, port, address class, name
 *    rules, the task's allowances). The operator's rule, which no task, site or secret can widen,
 *    judged on the URL alone: a request it refuses gets the same code on every hook, whatever
 *    content that hook could see.
 * 2. hosts: a top-level navigation stays on the task's hosts.
 * 3. site: a site task's request never goes to another origin on a site host (its cookies would).
 * 4. secret: once a secret is typed, nothing carries it to an origin it is not bound to; content a
 *    hook cannot see is refused toward any such origin.
 * 5. method: a read_only task sends only GET, HEAD and OPTIONS. Last, because a refused write is the
 *    one refusal that does not stop a navigating page: any other rule that also applies must win.
 *
 * Pure: no browser, no I/O; the hook gathers what the request carries before it asks.
 */
export function judgeRequest(request: RequestToJudge, rules: RequestRules): RequestVerdict {
  const { url, via } = request;
  const unloading = via === "unload" ? " (sent while the page unloaded)" : "";
  const policy = rules.guard.checkRequest(url);
  if (!policy.allowed) return { allowed: false, rule: "policy", code: policy.code, reason: `${policy.reason}${unloading}` };
  if (request.navigation && !rules.onTaskHosts(url)) {
    const reason =
      via === "redirect"
        ? `a redirect to ${hostOf(url)} leaves the task's hosts`
        : `${hostOf(url)} is not the target's host or one of allowedHosts${unloading}`;
    return { allowed: false, rule: "hosts", code: "navigation_blocked", reason };
  }
  const siteLeak = sessionLeakReason(url, rules.siteOrigins);
  if (siteLeak !== null) return { allowed: false, rule: "site", code: "session_egress_blocked", reason: `${siteLeak}${unloading}` };
  const egress = rules.secretEgress;
  let carriesSecret = false;
  if (egress.active) {
    const { carries } = request;
    if ("unseen" in carries) {
      const unbound = egress.unboundAt(url);
      if (unbound !== null) return secretRefusal(unbound, `${carries.unseen}, and the secret ${unbound} is not bound to ${originOf(url)}${unloading}`);
    } else {
      const outgoing = { url, ...carries };
      const leaked = egress.leak(outgoing);
      if (leaked !== null)
        return secretRefusal(leaked, `${CARRIES[via]} the secret ${leaked} to ${originOf(url)}, which that secret is not bound to${unloading}`);
      carriesSecret = egress.carriesAny(outgoing);
    }
  }
  const method = request.method.toUpperCase();
  const writes = !isReadOnlyMethod(method);
  if (writes && rules.readOnly)
    return { allowed: false, rule: "method", code: "method_blocked", reason: `${method} is not allowed in a read_only task${unloading}` };
  return { allowed: true, carriesSecret, writes };
}

/**
 * True when the typed-secret rule would read this request's headers and body: a secret is typed
 * and not bound to the URL's origin. A hook whose content costs a round trip (the unload guard's
 * cookie jar) gathers it only then; toward a bound origin the rule never looks at it.
 */
export function secretRuleReadsContent(url: string, rules: Pick<RequestRules, "secretEgress">): boolean {
  return rules.secretEgress.active && rules.secretEgress.unboundAt(url) !== null;
}

/**
 * How a refused request is counted in the receipt (AttemptState.recordBlocked): a refused write by
 * itself, a typed secret's (and a site cookie's, off a navigation) as secret egress, any other
 * refused top-level navigation as a navigation, the rest as the network policy's.
 */
export function blockedKind(rule: RequestRule, navigation: boolean): "policy" | "method" | "navigation" | "secret" {
  if (rule === "method") return "method";
  if (rule === "secret") return "secret";
  if (navigation) return "navigation";
  return rule === "site" ? "secret" : "policy";
}

const CARRIES: Record<RequestPath, string> = {
  request: "it carries",
  redirect: "a redirect would carry",
  "socket message": "a message carried",
  unload: "it carries",
};

function secretRefusal(secret: string, reason: string): RefusedRequest {
  return { allowed: false, rule: "secret", code: "secret_egress_blocked", reason, secret };
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "an unparseable address";
  }
}
