%% spawn-idle (seed 004, the "1M tasks" posts): spawn N processes that each
%% sleep H ms; mark the moment all of them have started, then wait for all.
%%
%% Each process's first action is atomics:add_get on a shared counter; the one
%% that brings it to N sends all_started to the spawner (no polling, no message
%% per process: a million `started` messages would sit in the spawner's heap at
%% the very moment memory is measured). Completion is counted the same way on a
%% second counter. Plain spawn: no link or monitor, which would add memory per
%% process.
-module(concbench_spawn_idle).
-export([params/0, setup/1]).

params() ->
    ["tasks", "hold-ms"].

setup(P) ->
    N = concbench:int(P, "tasks", 0),
    Hold = concbench:int(P, "hold-ms", 0),
    fun(Index) ->
            Counters = atomics:new(2, [{signed, false}]),   % 1: started, 2: completed
            Self = self(),
            Tag = make_ref(),
            Task = fun() ->
                           atomics:add_get(Counters, 1, 1) =:= N andalso (Self ! {Tag, all_started}),
                           receive after Hold -> ok end,
                           atomics:add_get(Counters, 2, 1) =:= N andalso (Self ! {Tag, all_done})
                   end,
            Start = concbench:now_ns(),
            spawn_tasks(N, Task),
            N > 0 andalso receive {Tag, all_started} -> true end,
            concbench:mark(<<"all-spawned">>, Index, concbench:now_ns() - Start),
            N > 0 andalso receive {Tag, all_done} -> true end,
            Elapsed = concbench:now_ns() - Start,
            {Elapsed, [{tasks, atomics:get(Counters, 2)}]}
    end.

spawn_tasks(0, _Task) -> ok;
spawn_tasks(N, Task) -> spawn(Task), spawn_tasks(N - 1, Task).
