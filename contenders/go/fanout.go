package main

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// fanout (seed 000): build R user profiles; each needs the user first, then
// orders, preferences and notifications concurrently.

var fanoutParams = []string{"requests", "concurrency", "user-ms", "orders-ms", "prefs-ms", "notifications-ms", "pool-size"}

type User struct {
	ID   int
	Name string
}

type Order struct{ ID, Item string }

type Preferences struct {
	DarkMode bool
	Language string
}

type Notification struct{ ID, Message string }

type UserProfile struct {
	User          User
	Orders        []Order
	Preferences   Preferences
	Notifications []Notification
}

// userService mocks the remote calls: each sleeps, then returns fresh values.
// Each fetch times its own sleep into its kind's proof (docs/contract.md).
type userService struct {
	user, orders, prefs, notifications time.Duration
	proofs                             *fanoutProofs
}

func (s *userService) fetchUser(id int) User {
	s.proofs.user.sleep(s.user)
	return User{id, "User-" + strconv.Itoa(id)}
}

func (s *userService) fetchOrders(userID int) []Order {
	s.proofs.orders.sleep(s.orders)
	return []Order{{"O1", "Item A"}, {"O2", "Item B"}}
}

func (s *userService) fetchPreferences(userID int) Preferences {
	s.proofs.prefs.sleep(s.prefs)
	return Preferences{true, "en-US"}
}

func (s *userService) fetchNotifications(userID int) []Notification {
	s.proofs.notifications.sleep(s.notifications)
	return []Notification{{"N1", "Welcome"}, {"N2", "New order"}}
}

// fetchProof is one fetch kind's proof: how many fetches of it slept, and
// the shortest sleep one of them measured around its own time.Sleep.
type fetchProof struct {
	count atomic.Int64
	slept minSleep
}

func (f *fetchProof) sleep(d time.Duration) {
	slept := timedSleep(d)
	f.count.Add(1)
	f.slept.record(slept)
}

type fanoutProofs struct{ user, orders, prefs, notifications fetchProof }

func newFanoutProofs() *fanoutProofs {
	p := &fanoutProofs{}
	for _, f := range p.kinds() {
		f.slept.reset()
	}
	return p
}

func (p *fanoutProofs) kinds() [4]*fetchProof {
	return [4]*fetchProof{&p.user, &p.orders, &p.prefs, &p.notifications}
}

// perFetch holds one figure per fetch kind, as the result's objects do.
type perFetch struct {
	User          int64 `json:"user"`
	Orders        int64 `json:"orders"`
	Prefs         int64 `json:"prefs"`
	Notifications int64 `json:"notifications"`
}

func (p *fanoutProofs) figures() (fetched, sleptMinNs perFetch) {
	k := p.kinds()
	fetched = perFetch{k[0].count.Load(), k[1].count.Load(), k[2].count.Load(), k[3].count.Load()}
	sleptMinNs = perFetch{k[0].slept.nanos(), k[1].slept.nanos(), k[2].slept.nanos(), k[3].slept.nanos()}
	return fetched, sleptMinNs
}

func (s *userService) buildUserProfile(id int) UserProfile {
	user := s.fetchUser(id)
	var (
		wg            sync.WaitGroup
		orders        []Order
		prefs         Preferences
		notifications []Notification
	)
	wg.Add(3)
	go func() { defer wg.Done(); orders = s.fetchOrders(id) }()
	go func() { defer wg.Done(); prefs = s.fetchPreferences(id) }()
	go func() { defer wg.Done(); notifications = s.fetchNotifications(id) }()
	wg.Wait()
	return UserProfile{user, orders, prefs, notifications}
}

type fanoutResult struct {
	Profiles int   `json:"profiles"`
	IDSum    int64 `json:"id_sum"`
	IDSqSum  int64 `json:"id_sq_sum"` // Σ id²: proves every id was built exactly once
	Items    int64 `json:"items"`
	PoolSize *int  `json:"pool_size"` // always null: goroutines are not pooled
	// counted and timed by the fetches themselves (fanoutProofs)
	Fetched    perFetch `json:"fetched"`
	SleptMinNs perFetch `json:"slept_min_ns"`
}

func newFanout(p params) (runner, error) {
	v, err := p.ints(0, "requests", "concurrency", "pool-size")
	if err != nil {
		return nil, err
	}
	d, err := p.allMillis("user-ms", "orders-ms", "prefs-ms", "notifications-ms")
	if err != nil {
		return nil, err
	}
	requests, concurrency := v[0], v[1]

	return func(int) (time.Duration, any) {
		svc := &userService{d[0], d[1], d[2], d[3], newFanoutProofs()}
		start := time.Now()
		profiles := make([]UserProfile, requests) // each goroutine fills its own slot
		var sem chan struct{}                     // at most concurrency requests in flight
		if concurrency > 0 {
			sem = make(chan struct{}, concurrency)
		}
		var wg sync.WaitGroup
		wg.Add(requests)
		for id := 1; id <= requests; id++ {
			if sem != nil {
				sem <- struct{}{}
			}
			go func() {
				defer wg.Done()
				profiles[id-1] = svc.buildUserProfile(id)
				if sem != nil {
					<-sem
				}
			}()
		}
		wg.Wait()
		elapsed := time.Since(start)

		var r fanoutResult
		r.Fetched, r.SleptMinNs = svc.proofs.figures()
		for i := range profiles {
			pr := &profiles[i]
			if pr.User.ID == 0 {
				continue // not built
			}
			r.Profiles++
			id := int64(pr.User.ID)
			r.IDSum += id
			r.IDSqSum += id * id
			r.Items += int64(len(pr.Orders) + 1 + len(pr.Notifications))
		}
		return elapsed, r
	}, nil
}
