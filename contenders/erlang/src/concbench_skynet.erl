%% skynet (atemerev/skynet): a process per node of a tree of `size` leaves,
%% `branch` children per inner node.
%%
%% An inner node spawns its children (plain spawn: no link or monitor, the
%% bodies are arithmetic and cannot crash), receives their {Sum, Tasks}
%% messages in whatever order they arrive and sends its own {Sum, Tasks} (the
%% sum of its leaves' ordinals, the tasks its subtree ran) to its parent; a leaf
%% sends {Num, 1}. The root is spawned by the iteration's process and the clock
%% covers the whole tree. Each node's mailbox receives only its children's
%% messages, so the messages carry no tag.
-module(concbench_skynet).
-export([params/0, setup/1]).

-define(MAX_SIZE, 100000000).

params() ->
    ["size", "branch"].

setup(P) ->
    Size = concbench:int(P, "size", 1),
    Branch = concbench:int(P, "branch", 2),
    Size =< ?MAX_SIZE orelse concbench:bad("--size=~b: at most ~b", [Size, ?MAX_SIZE]),
    is_power(Size, Branch, 1) orelse
        concbench:bad("--size=~b is not a power of --branch=~b", [Size, Branch]),
    fun(_Index) ->
            Self = self(),
            whereis(?MODULE) =:= Self orelse register(?MODULE, Self),   % leaf 0 reports here
            Before = erlang:system_info(process_count),
            Cpu = concbench:cpu_ns(),
            Start = concbench:now_ns(),
            spawn(fun() -> skynet(Self, 0, Size, Branch) end),
            {Sum, Tasks} = receive {S, T} when is_integer(S) -> {S, T} end,
            Elapsed = concbench:now_ns() - Start,
            CpuLine = concbench:cpu(Cpu),
            Alive = receive {first_leaf, Count} -> Count - Before end,
            {Elapsed, [{sum, Sum}, {tasks, Tasks}, {tasks_alive, Alive}], CpuLine}
    end.

is_power(Size, _Branch, Leaves) when Leaves >= Size -> Leaves =:= Size;
is_power(Size, Branch, Leaves) -> is_power(Size, Branch, Leaves * Branch).

skynet(Parent, 0, 1, _Branch) ->
    %% leaf 0 tells the iteration's process (registered as this module) how many
    %% processes are alive now: one call and one message per tree
    ?MODULE ! {first_leaf, erlang:system_info(process_count)},
    Parent ! {0, 1};
skynet(Parent, Num, 1, _Branch) ->
    Parent ! {Num, 1};
skynet(Parent, Num, Size, Branch) ->
    Part = Size div Branch,
    spawn_children(self(), Num, Part, Branch, 0),
    Parent ! collect(Branch, 0, 1).

spawn_children(_Self, _Num, _Part, Branch, Branch) ->
    ok;
spawn_children(Self, Num, Part, Branch, I) ->
    spawn(fun() -> skynet(Self, Num + I * Part, Part, Branch) end),
    spawn_children(Self, Num, Part, Branch, I + 1).

%% collect: {Σ children's sums, 1 + Σ children's task counts}.
collect(0, Sum, Tasks) ->
    {Sum, Tasks};
collect(N, Sum, Tasks) ->
    receive {S, T} -> collect(N - 1, Sum + S, Tasks + T) end.
