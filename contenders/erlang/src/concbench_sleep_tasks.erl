%% sleep-tasks (seed 001): N processes; each sleeps, then runs a small CPU loop
%% and sends its sum to the iteration's process, which counts the messages.
-module(concbench_sleep_tasks).
-export([params/0, setup/1]).

params() ->
    ["tasks", "sleep-ms", "cpu-iters", "pool-size"].

setup(P) ->
    [N, SleepMs, K, _Pool] = [concbench:int(P, Name, 0) || Name <- params()],
    fun(_Index) ->
            Start = concbench:now_ns(),
            Self = self(),
            Tag = make_ref(),
            spawn_tasks(N, fun() ->
                                   receive after SleepMs -> ok end,
                                   Self ! {Tag, cpu(0, K, 0)}
                           end),
            {Tasks, Sum} = join(Tag, N, 0, 0),
            Elapsed = concbench:now_ns() - Start,
            {Elapsed, [{tasks, Tasks}, {cpu_sum, Sum}, {pool_size, null}]}
    end.

spawn_tasks(0, _Task) -> ok;
spawn_tasks(N, Task) -> spawn(Task), spawn_tasks(N - 1, Task).

%% join receives one message per finished task: tasks is counted, not echoed.
join(_Tag, 0, Tasks, Sum) ->
    {Tasks, Sum};
join(Tag, Left, Tasks, Sum) ->
    receive {Tag, S} -> join(Tag, Left - 1, Tasks + 1, Sum + S) end.

%% s = sum of i rem 2 for i < K: a real loop (small integers, no allocation).
cpu(I, K, Acc) when I < K -> cpu(I + 1, K, Acc + (I rem 2));
cpu(_I, _K, Acc) -> Acc.
