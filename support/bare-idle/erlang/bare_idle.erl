%% Bare idle BEAM processes: the reference for spawn-idle's bytes per task.
%%
%%   erl +P P -noinput -pa DIR -s bare_idle main -extra N HOLD_MS
%%
%% N plain spawns of a process that only does receive after HOLD_MS; "spawned" once the
%% spawning loop is done; each process then sends done to the spawner, which counts N of
%% them (no link, no monitor) and halts.
-module(bare_idle).
-export([main/0]).

main() ->
    [NArg, HoldArg] = init:get_plain_arguments(),
    N = list_to_integer(NArg),
    Hold = list_to_integer(HoldArg),
    Self = self(),
    spawn_n(N, fun() -> receive after Hold -> ok end, Self ! done end),
    io:put_chars("spawned\n"),
    wait_n(N),
    erlang:halt(0).

spawn_n(0, _F) -> ok;
spawn_n(N, F) -> spawn(F), spawn_n(N - 1, F).

wait_n(0) -> ok;
wait_n(N) -> receive done -> wait_n(N - 1) end.
