%% sleep-tasks (seed 001): N processes; each times its sleep, then runs K steps of
%% a 32-bit chain seeded with cpu-seed and sends its sum and its timed sleep to
%% the iteration's process, which counts the messages, sums the chains and keeps
%% the shortest sleep.
-module(concbench_sleep_tasks).
-export([params/0, setup/1]).

-define(MASK, 16#FFFFFFFF).

params() ->
    ["tasks", "sleep-ms", "cpu-iters", "cpu-seed", "pool-size"].

setup(P) ->
    [N, SleepMs, K, Seed, _Pool] = [concbench:int(P, Name, 0) || Name <- params()],
    Seed =< ?MASK orelse concbench:bad("--cpu-seed=~b: must be < 2^32", [Seed]),
    fun(_Index) ->
            Start = concbench:now_ns(),
            Self = self(),
            Tag = make_ref(),
            spawn_tasks(N, fun() ->
                                   T0 = erlang:monotonic_time(nanosecond),
                                   receive after SleepMs -> ok end,
                                   Slept = erlang:monotonic_time(nanosecond) - T0,
                                   Self ! {Tag, cpu(K, Seed, 0), Slept}
                           end),
            {Tasks, Sum, SleptMin} = join(Tag, N, 0, 0, null),
            Elapsed = concbench:now_ns() - Start,
            {Elapsed, [{tasks, Tasks}, {cpu_sum, Sum}, {slept_min_ns, SleptMin}, {pool_size, null}]}
    end.

spawn_tasks(0, _Task) -> ok;
spawn_tasks(N, Task) -> spawn(Task), spawn_tasks(N - 1, Task).

%% join receives one message per finished task: tasks is counted, not echoed.
%% The shortest sleep starts as null: in Erlang's term order every number sorts
%% before an atom, so min(null, Slept) is Slept (and null stays when N = 0).
join(_Tag, 0, Tasks, Sum, SleptMin) ->
    {Tasks, Sum, SleptMin};
join(Tag, Left, Tasks, Sum, SleptMin) ->
    receive {Tag, S, Slept} -> join(Tag, Left - 1, Tasks + 1, Sum + S, min(SleptMin, Slept)) end.

%% cpu runs K steps of x = x * 1664525 + 1013904223, s = s + x, each masked to
%% 32 bits (band 16#FFFFFFFF); x * 1664525 < 2^53 stays a small integer (no
%% bignum), so the loop allocates nothing.
cpu(0, _X, S) -> S;
cpu(K, X, S) ->
    X1 = (X * 1664525 + 1013904223) band ?MASK,
    cpu(K - 1, X1, (S + X1) band ?MASK).
