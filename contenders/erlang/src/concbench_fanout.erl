%% fanout (seed 000): build R user profiles; each needs the user first, then
%% orders, preferences and notifications concurrently.
%%
%% One process per request; it fetches the user (a sleep in that process), then
%% spawns one process per sub-fetch, each of which sleeps and sends its result
%% to the request process; the request process builds the profile and sends it
%% to the iteration's process, which collects all R profiles. Joins are by
%% message only (plain spawn, no links or monitors: a link or monitor per
%% process would add an exit signal per process and nothing here can crash).
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
    Start = fun(Id) -> spawn(fun() -> Self ! {Tag, build_profile(Id, Delays)} end) end,
    lists:foreach(Start, lists:seq(1, InFlight)),
    collect(Tag, Start, InFlight + 1, R, R, []).

collect(_Tag, _Start, _Next, _R, 0, Acc) ->
    Acc;
collect(Tag, Start, Next, R, Left, Acc) ->
    receive
        {Tag, Profile} ->
            Next =< R andalso Start(Next),
            collect(Tag, Start, Next + 1, R, Left - 1, [Profile | Acc])
    end.

build_profile(Id, {UserMs, OrdersMs, PrefsMs, NotificationsMs}) ->
    User = fetch_user(Id, UserMs),
    Self = self(),
    spawn(fun() -> Self ! {orders, fetch_orders(Id, OrdersMs)} end),
    spawn(fun() -> Self ! {preferences, fetch_preferences(Id, PrefsMs)} end),
    spawn(fun() -> Self ! {notifications, fetch_notifications(Id, NotificationsMs)} end),
    %% the request process's mailbox receives only these three messages
    receive {orders, Orders} -> ok end,
    receive {preferences, Prefs} -> ok end,
    receive {notifications, Notifications} -> ok end,
    #profile{user = User, orders = Orders, preferences = Prefs, notifications = Notifications}.

%% The mocked remote calls: each sleeps (receive ... after, what timer:sleep/1
%% does), then returns its value.
fetch_user(Id, Ms) ->
    receive after Ms -> ok end,
    #user{id = Id, name = <<"User-", (integer_to_binary(Id))/binary>>}.

fetch_orders(_UserId, Ms) ->
    receive after Ms -> ok end,
    [#order{id = <<"O1">>, item = <<"Item A">>}, #order{id = <<"O2">>, item = <<"Item B">>}].

fetch_preferences(_UserId, Ms) ->
    receive after Ms -> ok end,
    #preferences{dark_mode = true, language = <<"en-US">>}.

fetch_notifications(_UserId, Ms) ->
    receive after Ms -> ok end,
    [#notification{id = <<"N1">>, message = <<"Welcome">>},
     #notification{id = <<"N2">>, message = <<"New order">>}].

%% result sums over the built profiles, after the clock stopped.
result(Profiles) ->
    {N, Sum, SqSum, Items} =
        lists:foldl(fun(#profile{user = #user{id = Id}, orders = O, notifications = Ns},
                        {N, S, Sq, It}) ->
                            {N + 1, S + Id, Sq + Id * Id, It + length(O) + 1 + length(Ns)}
                    end, {0, 0, 0, 0}, Profiles),
    [{profiles, N}, {id_sum, Sum}, {id_sq_sum, SqSum}, {items, Items}, {pool_size, null}].
