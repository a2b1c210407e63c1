//! `fanout` (seed 000): per id, fetch the user, then orders, preferences and
//! notifications concurrently (`tokio::join!`), and build a `UserProfile`.
//! One `tokio::spawn` per request; `concurrency` > 0 bounds the requests in
//! flight with a `tokio::sync::Semaphore`: the spawning loop acquires an owned
//! permit before each spawn and the task drops it when its profile is built
//! (Tokio's "limit the requests being handled" pattern, so at most C request
//! tasks exist at a time).
//!
//! Each fetch times its own sleep and counts itself (`FetchProof`), so the
//! result proves every fetch waited on a timer of its own (docs/contract.md).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;
use tokio::time::sleep;

use crate::{Fields, Objects, Params, joined};

pub const PARAMS: &[&str] = &[
    "requests",
    "concurrency",
    "user-ms",
    "orders-ms",
    "prefs-ms",
    "notifications-ms",
    "pool-size",
];

// The seed's domain model. Fields that are only built, never read, are still
// part of the work (built and dropped), hence the allow. The constant fields
// are `&'static str`, as a Rust programmer writes literals that never change
// (Java's and Go's literals are shared constants too); only the user's name,
// formatted per id, is an owned String.
#[allow(dead_code)]
struct User {
    id: u64,
    name: String,
}
#[allow(dead_code)]
struct Order {
    id: &'static str,
    item: &'static str,
}
#[allow(dead_code)]
struct Preferences {
    dark_mode: bool,
    language: &'static str,
}
#[allow(dead_code)]
struct Notification {
    id: &'static str,
    message: &'static str,
}
#[allow(dead_code)]
struct UserProfile {
    user: User,
    orders: Vec<Order>,
    preferences: Preferences,
    notifications: Vec<Notification>,
}

/// One fetch kind's proof: how many of its fetches slept, and the shortest
/// sleep one of them measured around its own `sleep(..).await`. Relaxed is
/// enough: the tasks' `JoinHandle`s order these writes before the reads.
struct FetchProof {
    count: AtomicU64,
    slept_min_ns: AtomicU64,
}

impl FetchProof {
    fn new() -> FetchProof {
        FetchProof {
            count: AtomicU64::new(0),
            slept_min_ns: AtomicU64::new(u64::MAX),
        }
    }

    /// `sleep(delay).await` with the monotonic clock read right before and right after.
    async fn sleep(&self, delay: Duration) {
        let before = Instant::now();
        sleep(delay).await;
        let slept = before.elapsed().as_nanos() as u64;
        self.count.fetch_add(1, Relaxed);
        self.slept_min_ns.fetch_min(slept, Relaxed);
    }

    /// (count, shortest sleep in ns), resetting both for the next iteration.
    fn take(&self) -> (u64, u64) {
        let count = self.count.swap(0, Relaxed);
        let min = self.slept_min_ns.swap(u64::MAX, Relaxed);
        (count, if count == 0 { 0 } else { min })
    }
}

/// The mock service: each call sleeps its delay, then returns fresh objects.
struct UserService {
    user: Duration,
    orders: Duration,
    prefs: Duration,
    notifications: Duration,
    proofs: FanoutProofs,
}

/// One proof per fetch kind.
struct FanoutProofs {
    user: FetchProof,
    orders: FetchProof,
    prefs: FetchProof,
    notifications: FetchProof,
}

impl FanoutProofs {
    /// Each kind with its name in the result.
    fn kinds(&self) -> [(&'static str, &FetchProof); 4] {
        [
            ("user", &self.user),
            ("orders", &self.orders),
            ("prefs", &self.prefs),
            ("notifications", &self.notifications),
        ]
    }
}

impl UserService {
    async fn fetch_user(&self, id: u64) -> User {
        self.proofs.user.sleep(self.user).await;
        User {
            id,
            name: format!("User-{id}"),
        }
    }

    async fn fetch_orders(&self, _user_id: u64) -> Vec<Order> {
        self.proofs.orders.sleep(self.orders).await;
        vec![
            Order {
                id: "O1",
                item: "Item A",
            },
            Order {
                id: "O2",
                item: "Item B",
            },
        ]
    }

    async fn fetch_preferences(&self, _user_id: u64) -> Preferences {
        self.proofs.prefs.sleep(self.prefs).await;
        Preferences {
            dark_mode: true,
            language: "en-US",
        }
    }

    async fn fetch_notifications(&self, _user_id: u64) -> Vec<Notification> {
        self.proofs.notifications.sleep(self.notifications).await;
        vec![
            Notification {
                id: "N1",
                message: "Welcome",
            },
            Notification {
                id: "N2",
                message: "Discount",
            },
        ]
    }

    async fn build_user_profile(&self, id: u64) -> UserProfile {
        let user = self.fetch_user(id).await;
        let (orders, preferences, notifications) = tokio::join!(
            self.fetch_orders(user.id),
            self.fetch_preferences(user.id),
            self.fetch_notifications(user.id),
        );
        UserProfile {
            user,
            orders,
            preferences,
            notifications,
        }
    }
}

pub struct Fanout {
    requests: u64,
    concurrency: usize,
    service: Arc<UserService>,
}

impl Fanout {
    pub fn new(p: &Params) -> Fanout {
        let ms = |name| Duration::from_millis(p.u64(name));
        let concurrency = p.usize("concurrency");
        if concurrency > Semaphore::MAX_PERMITS {
            p.reject("concurrency", "more than tokio's Semaphore::MAX_PERMITS");
        }
        let _ = p.u64("pool-size"); // validated, then ignored: one task per request
        Fanout {
            requests: p.u64("requests"),
            concurrency,
            service: Arc::new(UserService {
                user: ms("user-ms"),
                orders: ms("orders-ms"),
                prefs: ms("prefs-ms"),
                notifications: ms("notifications-ms"),
                proofs: FanoutProofs {
                    user: FetchProof::new(),
                    orders: FetchProof::new(),
                    prefs: FetchProof::new(),
                    notifications: FetchProof::new(),
                },
            }),
        }
    }

    /// The timed part: every profile built and joined. Summing them, and dropping them, happens
    /// after the clock stops (`Profiles::fields`), as in the other contenders.
    pub async fn run(&self) -> Profiles {
        let limit = (self.concurrency > 0).then(|| Arc::new(Semaphore::new(self.concurrency)));
        let mut handles = Vec::with_capacity(self.requests as usize);
        for id in 1..=self.requests {
            let permit = match &limit {
                Some(sem) => Some(Arc::clone(sem).acquire_owned().await.expect("never closed")),
                None => None,
            };
            let service = Arc::clone(&self.service);
            handles.push(tokio::spawn(async move {
                let profile = service.build_user_profile(id).await;
                drop(permit);
                profile
            }));
        }
        let mut profiles = Vec::with_capacity(handles.len());
        for handle in handles {
            profiles.push(joined(handle.await));
        }
        Profiles {
            profiles,
            service: Arc::clone(&self.service),
        }
    }
}

/// The built profiles of one fanout iteration, and the service whose fetches kept the proofs.
pub struct Profiles {
    profiles: Vec<UserProfile>,
    service: Arc<UserService>,
}

impl Profiles {
    /// The sums over the profiles, and the fetches' counts and shortest sleeps per kind
    /// (`fetched`, `slept_min_ns`), which are reset for the next iteration.
    pub fn fields(self) -> (Fields, Objects) {
        let (mut id_sum, mut id_sq_sum, mut items) = (0u64, 0u64, 0u64);
        for profile in &self.profiles {
            let id = profile.user.id;
            id_sum += id;
            id_sq_sum += id * id; // Σ id² fits u64 up to R ≈ 3.8 million
            items += (profile.orders.len() + 1 + profile.notifications.len()) as u64;
        }
        let (mut fetched, mut slept_min_ns) = (Vec::new(), Vec::new());
        for (kind, proof) in self.service.proofs.kinds() {
            let (count, min) = proof.take();
            fetched.push((kind, Some(count)));
            slept_min_ns.push((kind, Some(min)));
        }
        let fields = vec![
            ("profiles", Some(self.profiles.len() as u64)),
            ("id_sum", Some(id_sum)),
            ("id_sq_sum", Some(id_sq_sum)),
            ("items", Some(items)),
            ("pool_size", None),
        ];
        (
            fields,
            vec![("fetched", fetched), ("slept_min_ns", slept_min_ns)],
        )
    }
}
