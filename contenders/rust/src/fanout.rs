//! `fanout` (seed 000): per id, fetch the user, then orders, preferences and
//! notifications concurrently (`tokio::join!`), and build a `UserProfile`.
//! One `tokio::spawn` per request; `concurrency` > 0 bounds the requests in
//! flight with a `tokio::sync::Semaphore`: the spawning loop acquires an owned
//! permit before each spawn and the task drops it when its profile is built
//! (Tokio's "limit the requests being handled" pattern, so at most C request
//! tasks exist at a time).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Semaphore;
use tokio::time::sleep;

use crate::{Fields, Params, joined};

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

/// The mock service: each call sleeps its delay, then returns fresh objects.
struct UserService {
    user: Duration,
    orders: Duration,
    prefs: Duration,
    notifications: Duration,
}

impl UserService {
    async fn fetch_user(&self, id: u64) -> User {
        sleep(self.user).await;
        User {
            id,
            name: format!("User-{id}"),
        }
    }

    async fn fetch_orders(&self, _user_id: u64) -> Vec<Order> {
        sleep(self.orders).await;
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
        sleep(self.prefs).await;
        Preferences {
            dark_mode: true,
            language: "en-US",
        }
    }

    async fn fetch_notifications(&self, _user_id: u64) -> Vec<Notification> {
        sleep(self.notifications).await;
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
        Profiles(profiles)
    }
}

/// The built profiles of one fanout iteration.
pub struct Profiles(Vec<UserProfile>);

impl Profiles {
    pub fn fields(self) -> Fields {
        let (mut id_sum, mut id_sq_sum, mut items) = (0u64, 0u64, 0u64);
        for profile in &self.0 {
            let id = profile.user.id;
            id_sum += id;
            id_sq_sum += id * id; // Σ id² fits u64 up to R ≈ 3.8 million
            items += (profile.orders.len() + 1 + profile.notifications.len()) as u64;
        }
        vec![
            ("profiles", Some(self.0.len() as u64)),
            ("id_sum", Some(id_sum)),
            ("id_sq_sum", Some(id_sq_sum)),
            ("items", Some(items)),
            ("pool_size", None),
        ]
    }
}
