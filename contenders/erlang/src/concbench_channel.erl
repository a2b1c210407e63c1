%% channel (seed 002, bench-of-chan): W consumers, each fed by its own producer
%% with E events through a bounded queue of capacity Q.
%%
%% A mailbox is unbounded, so the bound is a credit-based flow control (the
%% scheme of GenStage's demand or TCP's window): the producer starts with Q
%% credits and spends one per event sent; with no credit left it waits for a
%% grant. The consumer grants B = max(1, Q div 2) credits each time it has
%% consumed B events. So at most Q sent-but-unconsumed events exist at any time
%% (in the consumer's mailbox or in flight), as in a channel of capacity Q.
%% After the last event the producer sends `eof` (the close; it takes no slot).
%% Events travel as bare terms (the integer or the binary), grants as bare
%% integers: each mailbox receives only its partner's messages.
%%
%% Event kinds (binaries, since strings in Erlang programs are binaries):
%%   int        the index I: an immediate, nothing allocated or copied
%%   str        binary:copy(<<"x">>, S): a new binary built per event
%%   str_ptr    one binary, stored once with persistent_term:put, which moves it
%%              to the literal area; a literal is never copied by a send, so every
%%              event is a reference to the very same term
%%   str_clone  binary:copy(Proto): a new copy of a prototype binary per event
%% A binary of up to 64 bytes is a heap binary: a send copies its bytes into the
%% message. A larger one is a reference-counted off-heap binary: a send copies a
%% small header (ProcBin) that points to the shared bytes. A plain binary sent E
%% times is thus copied E times (<= 64 bytes) or shares its bytes but gets a new
%% header per message (> 64 bytes); only a literal arrives as the same term.
%%
%% same_as_prev: the consumer keeps the previous event's binary in its loop
%% variable (alive until the next arrives) and tests erts_debug:same/2, a pointer
%% comparison of the two terms. For str_ptr both are the literal: true. For str
%% and str_clone each message holds its own copy (<= 64 bytes) or its own header
%% (> 64 bytes), and the producer made a new binary per event: false.
-module(concbench_channel).
-export([params/0, setup/1]).

-define(SHARED_KEY, {?MODULE, str_ptr}).

params() ->
    ["workers", "events", "queue", "etype", "esize"].

setup(P) ->
    [W, E, S] = [concbench:int(P, N, 0) || N <- ["workers", "events", "esize"]],
    Q = concbench:int(P, "queue", 1),
    Proto = binary:copy(<<"x">>, S),
    Next = case maps:get("etype", P) of
               "int" ->
                   fun(I) -> I end;
               "str" ->
                   fun(_) -> binary:copy(<<"x">>, S) end;
               "str_clone" ->
                   fun(_) -> binary:copy(Proto) end;
               "str_ptr" ->
                   persistent_term:put(?SHARED_KEY, Proto),
                   Shared = persistent_term:get(?SHARED_KEY),
                   fun(_) -> Shared end;
               Other ->
                   concbench:bad("--etype=~s: want int, str, str_ptr or str_clone", [Other])
           end,
    IsInt = maps:get("etype", P) =:= "int",
    Grant = max(1, Q div 2),
    fun(_Index) ->
            Start = concbench:now_ns(),
            Tallies = run(W, E, Q, Grant, Next, IsInt),
            Elapsed = concbench:now_ns() - Start,
            {Elapsed, result(Tallies, IsInt)}
    end.

%% run starts W consumers (each starts its own producer) and returns their
%% tallies once all are done.
run(W, E, Q, Grant, Next, IsInt) ->
    Self = self(),
    Tag = make_ref(),
    Consumer = fun() ->
                       Me = self(),
                       Producer = spawn(fun() -> produce(Me, 0, E, Q, Next) end),
                       Tally = case IsInt of
                                   true -> consume_ints(Producer, Grant, 0, 0, 0);
                                   false -> consume_strs(Producer, Grant, 0, 0, 0, none, 0)
                               end,
                       Self ! {Tag, Tally}
               end,
    lists:foreach(fun(_) -> spawn(Consumer) end, lists:seq(1, W)),
    [receive {Tag, T} -> T end || _ <- lists:seq(1, W)].

produce(Consumer, E, E, _Credit, _Next) ->
    Consumer ! eof;
produce(Consumer, I, E, 0, Next) ->
    receive Credit -> produce(Consumer, I, E, Credit, Next) end;
produce(Consumer, I, E, Credit, Next) ->
    Consumer ! Next(I),
    produce(Consumer, I + 1, E, Credit - 1, Next).

%% consume_ints counts the events and sums their values; Used counts events
%% consumed since the last grant.
consume_ints(Producer, Grant, Used, Events, Sum) ->
    receive
        eof ->
            {Events, Sum, 0};
        V ->
            case Used + 1 of
                Grant ->
                    Producer ! Grant,
                    consume_ints(Producer, Grant, 0, Events + 1, Sum + V);
                U ->
                    consume_ints(Producer, Grant, U, Events + 1, Sum + V)
            end
    end.

%% consume_strs counts the events, sums their sizes and counts the events whose
%% binary is the same term as the previous event's (Prev, kept alive here).
consume_strs(Producer, Grant, Used, Events, Sum, Prev, Same) ->
    receive
        eof ->
            {Events, Sum, Same};
        B ->
            Same1 = case erts_debug:same(B, Prev) of
                        true -> Same + 1;
                        false -> Same
                    end,
            case Used + 1 of
                Grant ->
                    Producer ! Grant,
                    consume_strs(Producer, Grant, 0, Events + 1, Sum + byte_size(B), B, Same1);
                U ->
                    consume_strs(Producer, Grant, U, Events + 1, Sum + byte_size(B), B, Same1)
            end
    end.

result(Tallies, IsInt) ->
    Counts = [Ev || {Ev, _, _} <- Tallies],
    {MinEvents, MaxEvents} = case Counts of
                                 [] -> {0, 0};
                                 _ -> {lists:min(Counts), lists:max(Counts)}
                             end,
    Events = lists:sum(Counts),
    Sum = lists:sum([S || {_, S, _} <- Tallies]),
    Spread = [{min_events, MinEvents}, {max_events, MaxEvents}],
    case IsInt of
        true ->
            [{events, Events}, {value_sum, Sum} | Spread];
        false ->
            Same = lists:sum([X || {_, _, X} <- Tallies]),
            [{events, Events}, {bytes, Sum} | Spread] ++ [{same_as_prev, Same}]
    end.
