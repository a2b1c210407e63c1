%% ring (seed 004's hand-off claim; the Benchmarks Game's thread-ring): R rings
%% of W processes pass a token H times; a hand-off is one message.
%%
%% Member I (1..W) of a ring blocks in receive and, given the token C, sends
%% C - 1 to member I+1 (member W to member 1); the member that receives 0 is the
%% ring's final holder and tells the iteration's process its id. Tokens are bare
%% small integers (immediates: a send copies no heap data). Member 1 holds the
%% token first: it waits for `release` (the start, not a pass, so not counted)
%% and then holds the count H.
%%
%% Every member of every ring is spawned and has entered its receive before the
%% clock starts: each bumps a shared atomics counter just before its first
%% receive, and the one that brings it to R·W tells the iteration's process (no
%% message per process). The clock starts before the first `release` is sent and
%% stops when the R-th final holder's message arrives. Then a `stop` is passed
%% round each ring: each member forwards it, reports its count of tokens received
%% and exits (a send to a member that already exited is dropped, as Erlang's
%% sends to dead processes are).
%%
%% Ring 1's members stamp erlang:monotonic_time(nanosecond) into a preallocated
%% atomics array (signed: monotonic time may be negative) when they hold a count
%% C with C rem K == 0. The hand-offs are sequential, so the writes never race.
-module(concbench_ring).
-export([params/0, setup/1]).

-define(MAX_TASKS, 1000000).
-define(MAX_PASSES, 100000000).

%% What a member needs besides its id and successor. stamps is none outside ring 1.
-record(ctx, {tag :: reference(), owner :: pid(), ready :: atomics:atomics_ref(),
              tasks :: pos_integer(), stamps = none :: none | atomics:atomics_ref(),
              every :: non_neg_integer(), last :: non_neg_integer()}).

params() ->
    ["rings", "size", "passes", "sample-every"].

setup(P) ->
    R = concbench:int(P, "rings", 1),
    W = concbench:int(P, "size", 2),
    H = concbench:int(P, "passes", 1),
    K = concbench:int(P, "sample-every", 0),   % 0: no clock read in the passes
    R * W =< ?MAX_TASKS orelse
        concbench:bad("rings x size = ~b tasks; at most ~b", [R * W, ?MAX_TASKS]),
    H =< ?MAX_PASSES orelse concbench:bad("--passes=~b: at most ~b", [H, ?MAX_PASSES]),
    fun(_Index) -> run(R, W, H, K) end.

run(R, W, H, K) ->
    Last = case K of 0 -> 0; _ -> H div K end,   % ring 1 stamps at C = Last*K, ..., K, 0
    Ctx = #ctx{tag = make_ref(), owner = self(), ready = atomics:new(1, []),
               tasks = R * W, every = K, last = Last},
    Tag = Ctx#ctx.tag,
    Stamps = case K of 0 -> none; _ -> atomics:new(Last + 1, [{signed, true}]) end,
    Before = erlang:system_info(process_count),
    Firsts = [build(W, H, case Ring of 1 -> Ctx#ctx{stamps = Stamps}; _ -> Ctx end)
              || Ring <- lists:seq(1, R)],
    receive {Tag, all_ready} -> ok end,
    Alive = erlang:system_info(process_count) - Before,   % every member, in its receive
    Cpu = concbench:cpu_ns(),
    Start = concbench:now_ns(),
    [First ! release || First <- Firsts],
    Holders = [receive {Tag, holder, Id} -> Id end || _ <- Firsts],
    Elapsed = concbench:now_ns() - Start,
    CpuLine = concbench:cpu(Cpu),
    [First ! stop || First <- Firsts],
    Received = lists:sum([receive {Tag, received, N} -> N end || _ <- lists:seq(1, R * W)]),
    settle(Before, erlang:monotonic_time(millisecond) + 1000),
    {Elapsed, [{rings, R}, {passes, Received},
               {holder_min, lists:min(Holders)}, {holder_max, lists:max(Holders)},
               {tasks_alive, Alive}, {clock_read_ns, concbench:clock_read_ns()}
               | summary(Stamps, Last, K)], CpuLine}.

%% settle waits (at most a second, outside the clock) until the members, which
%% report their count as their last act, have exited: the next iteration's
%% process_count before its spawns then holds none of them, and its tasks_alive
%% counts its own members only.
settle(Before, Deadline) ->
    case erlang:system_info(process_count) > Before andalso
         erlang:monotonic_time(millisecond) < Deadline of
        true -> erlang:yield(), settle(Before, Deadline);
        false -> ok
    end.

%% build spawns a ring and returns member 1. Member 1 is spawned first and told
%% its successor once member 2 exists; members W..2 are spawned backwards, each
%% given its successor at spawn (member W's is member 1).
build(W, H, Ctx) ->
    First = spawn(fun() -> receive {next, Next} -> first(Next, H, Ctx) end end),
    Second = lists:foldl(fun(Id, Next) -> spawn(fun() -> member(Id, Next, Ctx) end) end,
                         First, lists:seq(W, 2, -1)),
    First ! {next, Second},
    First.

first(Next, H, Ctx) ->
    up(Ctx),
    receive release -> ok end,
    hold(1, Next, Ctx, H),
    loop(1, Next, Ctx, 0).

member(Id, Next, Ctx) ->
    up(Ctx),
    loop(Id, Next, Ctx, 0).

up(#ctx{tag = Tag, owner = Owner, ready = Ready, tasks = Tasks}) ->
    atomics:add_get(Ready, 1, 1) =:= Tasks andalso (Owner ! {Tag, all_ready}).

loop(Id, Next, Ctx, Received) ->
    receive
        Token when is_integer(Token) ->
            hold(Id, Next, Ctx, Token),
            loop(Id, Next, Ctx, Received + 1);
        stop ->
            Next ! stop,
            Ctx#ctx.owner ! {Ctx#ctx.tag, received, Received}
    end.

hold(Id, Next, #ctx{stamps = none} = Ctx, Token) ->
    pass(Id, Next, Ctx, Token);
hold(Id, Next, #ctx{stamps = Stamps, every = K, last = Last} = Ctx, Token) ->
    Token rem K =:= 0 andalso
        atomics:put(Stamps, Last - Token div K + 1, erlang:monotonic_time(nanosecond)),
    pass(Id, Next, Ctx, Token).

pass(Id, _Next, #ctx{tag = Tag, owner = Owner}, 0) -> Owner ! {Tag, holder, Id};
pass(_Id, Next, _Ctx, Token) -> Next ! Token - 1.

%% summary: the per-hand-off gaps (ns between consecutive readings, div K) and
%% their nearest-rank p50 and p99; nothing below 2 readings (docs/contract.md).
%% Last + 1 readings give Last gaps, read straight from the atomics array.
summary(none, _Last, _K) ->
    [{handoff_samples, 0}];
summary(_Stamps, 0, _K) ->
    [{handoff_samples, 0}];
summary(Stamps, Last, K) ->
    Sorted = lists:sort(gaps(Stamps, K, Last, [])),
    [{handoff_p50_ns, nearest_rank(Sorted, Last, 50)},
     {handoff_p99_ns, nearest_rank(Sorted, Last, 99)},
     {handoff_samples, Last}].

%% gaps: the gap ending at reading I + 1, for I from Last down to 1, so the list
%% comes out in reading order.
gaps(_Stamps, _K, 0, Acc) ->
    Acc;
gaps(Stamps, K, I, Acc) ->
    Gap = (atomics:get(Stamps, I + 1) - atomics:get(Stamps, I)) div K,
    gaps(Stamps, K, I - 1, [Gap | Acc]).

%% nearest_rank: the ceil(P/100 * N)-th smallest of the N sorted gaps.
nearest_rank(Sorted, N, P) ->
    lists:nth(max(1, (P * N + 99) div 100), Sorted).
