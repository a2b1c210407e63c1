// fanout (seed 000): build R user profiles; each needs the user first, then
// orders, preferences and notifications concurrently (Promise.all).

import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { now } from "./common.mjs";
import { SleepProof } from "./sleepproof.mjs";

const FETCH_KINDS = ["user", "orders", "prefs", "notifications"];

// UserService mocks the remote calls: each awaits a timer, then returns fresh
// values. Each fetch reads performance.now() right before its sleep and records
// the time since right after it, in its kind's proof (docs/contract.md).
class UserService {
  constructor(userMs, ordersMs, prefsMs, notificationsMs) {
    Object.assign(this, { userMs, ordersMs, prefsMs, notificationsMs });
    this.resetProofs();
  }

  // resetProofs gives each fetch kind a fresh proof (before each iteration's clock).
  resetProofs() {
    this.proofs = Object.fromEntries(FETCH_KINDS.map((kind) => [kind, new SleepProof()]));
  }

  async fetchUser(id) {
    const before = performance.now();
    await sleep(this.userMs);
    this.proofs.user.recordSince(before);
    return { id, name: `User-${id}` };
  }

  async fetchOrders(userId) {
    const before = performance.now();
    await sleep(this.ordersMs);
    this.proofs.orders.recordSince(before);
    return [{ id: "O1", item: "Item A" }, { id: "O2", item: "Item B" }];
  }

  async fetchPreferences(userId) {
    const before = performance.now();
    await sleep(this.prefsMs);
    this.proofs.prefs.recordSince(before);
    return { darkMode: true, language: "en-US" };
  }

  async fetchNotifications(userId) {
    const before = performance.now();
    await sleep(this.notificationsMs);
    this.proofs.notifications.recordSince(before);
    return [{ id: "N1", message: "Welcome" }, { id: "N2", message: "New order" }];
  }

  async buildUserProfile(id) {
    const user = await this.fetchUser(id);
    const [orders, preferences, notifications] = await Promise.all([
      this.fetchOrders(id),
      this.fetchPreferences(id),
      this.fetchNotifications(id),
    ]);
    return { user, orders, preferences, notifications };
  }
}

// buildAll builds the profiles of ids 1..requests: all at once (concurrency 0),
// or with at most `concurrency` in flight: that many async workers take the
// next id from a shared counter until none is left (the p-limit idea in a few
// lines; the counter needs no lock on the single-threaded event loop).
async function buildAll(svc, requests, concurrency) {
  if (concurrency === 0) {
    return Promise.all(Array.from({ length: requests }, (_, i) => svc.buildUserProfile(i + 1)));
  }
  const profiles = new Array(requests);
  let next = 1;
  const worker = async () => {
    while (next <= requests) {
      const id = next++;
      profiles[id - 1] = await svc.buildUserProfile(id);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, requests) }, worker));
  return profiles;
}

// summarize computes the result from the built profiles and the fetches'
// proofs (after the clock stops).
function summarize(profiles, proofs) {
  let count = 0;
  let idSum = 0; // ≤ 2·10^12 at R = 2 000 000: exact as a double
  let idSqSum = 0n; // up to ~2.7·10^18: needs a bigint
  let items = 0;
  for (const p of profiles) {
    if (p === undefined) continue; // not built
    count++;
    idSum += p.user.id;
    idSqSum += BigInt(p.user.id) ** 2n;
    items += p.orders.length + 1 + p.notifications.length;
  }
  const perKind = (figure) => Object.fromEntries(FETCH_KINDS.map((k) => [k, figure(proofs[k])]));
  return {
    profiles: count, id_sum: idSum, id_sq_sum: idSqSum, items, pool_size: null,
    fetched: perKind((proof) => proof.count),
    slept_min_ns: perKind((proof) => proof.minNs()),
  };
}

export const fanout = {
  params: ["requests", "concurrency", "user-ms", "orders-ms", "prefs-ms", "notifications-ms", "pool-size"],
  setup(p) {
    const requests = p.int("requests");
    const concurrency = p.int("concurrency");
    p.int("pool-size"); // validated, then ignored: promises are not pooled
    const svc = new UserService(p.millis("user-ms"), p.millis("orders-ms"), p.millis("prefs-ms"),
      p.millis("notifications-ms"));
    return async () => {
      svc.resetProofs();
      const start = now();
      const profiles = await buildAll(svc, requests, concurrency);
      const elapsedNs = now() - start;
      return { elapsedNs, result: summarize(profiles, svc.proofs) };
    };
  },
};
