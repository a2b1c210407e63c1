%% The smallest Erlang program that holds N idle processes: plain spawn, receive after.
-module(bare).
-export([main/1]).

main([NArg, HoldArg]) ->
    N = list_to_integer(atom_to_list(NArg)),
    Hold = list_to_integer(atom_to_list(HoldArg)),
    [spawn(fun() -> receive after Hold -> ok end end) || _ <- lists:seq(1, N)],
    receive after Hold + 500 -> ok end,
    halt(0).
