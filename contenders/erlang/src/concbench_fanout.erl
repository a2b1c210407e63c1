%% fanout (seed 000): build R user profiles; each needs the user first, then
%% orders, preferences and notifications concurrently.
%%
%% One process per request; it fetches the user (a sleep in that process), then
%% spawns one process per sub-fetch, each of which sleeps and sends its result
%% to the request process; the request process builds the profile and sends it
%% to the iteration's process, which collects all R profiles. Joins are by
%% message only (plain spawn, no links or monitors: a link or monitor per
%% process would add an exit signal per process and nothing here can crash).
%%
%% Each fetch times its own sleep (monotonic clock right before and right after
%% it) and returns that duration with its value: the request process sends the
%% four durations with its profile, and they are reduced after the clock stops,
%% as the profile sums are (each duration counts its fetch once and takes part
%% in its kind's minimum: "fetched" and "slept_min_ns").
-module(concbench_fanout).
-export([params/0, setup/1]).

-record(user, {id, name}).
-record(order, {id, item}).
-record(preferences, {dark_mode, language}).
-record(notification, {id, message}).
-record(profile, {user, orders, preferences, notifications}).

params() ->
    ["requests", "concurrency", "user-ms", "orders-ms", "prefs-ms", "notifications-ms",
     "pool-size"].

setup(P) ->
    [R, C, _Pool] = [concbench:int(P, N, 0) || N <- ["requests", "concurrency", "pool-size"]],
    Delays = list_to_tuple([concbench:int(P, N, 0)
                            || N <- ["user-ms", "orders-ms", "prefs-ms", "notifications-ms"]]),
    InFlight = case C of
                   0 -> R;
                   _ -> min(C, R)
               end,
    fun(_Index) ->
            Start = concbench:now_ns(),
            Profiles = run(R, InFlight, Delays),
            Elapsed = concbench:now_ns() - Start,
            {Elapsed, result(Profiles)}
    end.

%% run starts the first InFlight requests, then one more each time a profile
%% arrives (so at most InFlight request processes exist), and returns the list
%% of all R profiles.
run(R, InFlight, Delays) ->
    Self = self(),
    Tag = make_ref(),
    Start = fun(Id) -> spawn(fun() -> Self ! {Tag, build_profile(Id, Delays)} end) end,   % {Profile, Slept}
    lists:foreach(Start, lists:seq(1, InFlight)),
    collect(Tag, Start, InFlight + 1, R, R, []).

collect(_Tag, _Start, _Next, _R, 0, Acc) ->
    Acc;
collect(Tag, Start, Next, R, Left, Acc) ->
    receive
        {Tag, ProfileAndSlept} ->
            Next =< R andalso Start(Next),
            collect(Tag, Start, Next + 1, R, Left - 1, [ProfileAndSlept | Acc])
    end.

%% build_profile returns the profile and the four fetches' timed sleeps, in ns.
build_profile(Id, {UserMs, OrdersMs, PrefsMs, NotificationsMs}) ->
    {User, UserSlept} = fetch_user(Id, UserMs),
    Self = self(),
    spawn(fun() -> Self ! {orders, fetch_orders(Id, OrdersMs)} end),
    spawn(fun() -> Self ! {preferences, fetch_preferences(Id, PrefsMs)} end),
    spawn(fun() -> Self ! {notifications, fetch_notifications(Id, NotificationsMs)} end),
    %% the request process's mailbox receives only these three messages
    receive {orders, {Orders, OrdersSlept}} -> ok end,
    receive {preferences, {Prefs, PrefsSlept}} -> ok end,
    receive {notifications, {Notifications, NotificationsSlept}} -> ok end,
    {#profile{user = User, orders = Orders, preferences = Prefs, notifications = Notifications},
     {UserSlept, OrdersSlept, PrefsSlept, NotificationsSlept}}.

%% The mocked remote calls: each sleeps (receive ... after, what timer:sleep/1
%% does), then returns its value and how long its sleep took.
fetch_user(Id, Ms) ->
    Slept = timed_sleep(Ms),
    {#user{id = Id, name = <<"User-", (integer_to_binary(Id))/binary>>}, Slept}.

fetch_orders(_UserId, Ms) ->
    Slept = timed_sleep(Ms),
    {[#order{id = <<"O1">>, item = <<"Item A">>}, #order{id = <<"O2">>, item = <<"Item B">>}], Slept}.

fetch_preferences(_UserId, Ms) ->
    Slept = timed_sleep(Ms),
    {#preferences{dark_mode = true, language = <<"en-US">>}, Slept}.

fetch_notifications(_UserId, Ms) ->
    Slept = timed_sleep(Ms),
    {[#notification{id = <<"N1">>, message = <<"Welcome">>},
      #notification{id = <<"N2">>, message = <<"New order">>}], Slept}.

%% timed_sleep sleeps Ms and returns the ns the sleep took by the monotonic clock.
timed_sleep(Ms) ->
    T0 = erlang:monotonic_time(nanosecond),
    receive after Ms -> ok end,
    erlang:monotonic_time(nanosecond) - T0.

%% result sums over the built profiles and reduces the fetches' timed sleeps,
%% after the clock stopped.
result(ProfilesAndSlept) ->
    {N, Sum, SqSum, Items} =
        lists:foldl(fun({#profile{user = #user{id = Id}, orders = O, notifications = Ns}, _},
                        {N, S, Sq, It}) ->
                            {N + 1, S + Id, Sq + Id * Id, It + length(O) + 1 + length(Ns)}
                    end, {0, 0, 0, 0}, ProfilesAndSlept),
    {Counts, Mins} = lists:foldl(fun count_and_min/2, {{0, 0, 0, 0}, {null, null, null, null}},
                                 ProfilesAndSlept),
    Kinds = [user, orders, prefs, notifications],
    [{profiles, N}, {id_sum, Sum}, {id_sq_sum, SqSum}, {items, Items}, {pool_size, null},
     {fetched, lists:zip(Kinds, tuple_to_list(Counts))},
     {slept_min_ns, lists:zip(Kinds, tuple_to_list(Mins))}].

%% count_and_min takes a request's four timed sleeps: each counts one fetch of its
%% kind and takes part in its kind's minimum (null to start with: in Erlang's
%% term order every number sorts before an atom, so min(null, D) is D).
count_and_min({_Profile, {U, O, P, Nt}}, {{CU, CO, CP, CN}, {MU, MO, MP, MN}}) ->
    {{CU + 1, CO + 1, CP + 1, CN + 1}, {min(MU, U), min(MO, O), min(MP, P), min(MN, Nt)}}.
