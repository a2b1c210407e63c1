%% concbench's Erlang/OTP contender: one BEAM process per task, OTP only.
%%
%% A batch workload runs W warm-up and N measured iterations in this VM and
%% prints one JSON line per iteration on stdout; a server workload (http-*)
%% serves HTTP until SIGTERM. As docs/contract.md specifies:
%%
%%   run-erlang <workload> --<param>=<value> ... --warmup=<W> --iterations=<N>
%%   run-erlang [--server=gen_tcp|inets|yaws] http-<name> --port=<P> --bind=<ADDR> --<param>=<value> ...
%%
%% --server picks the HTTP stack of the server workloads (the manifest's run of
%% each contender gives it): gen_tcp, the hand-written loop (concbench_http,
%% the default), inets, OTP's httpd (concbench_httpd), or yaws, Yaws in
%% embedded mode (concbench_yaws).
%% run-erlang execs `erl ... -s concbench main -extra <args>`; main/0 reads the
%% arguments after -extra. Exit 2 on bad input, 1 on any other failure.
-module(concbench).
-export([main/0]).
-export([int/3, port/1, ipv4/2, bad/2, now_ns/0, cpu_ns/0, cpu/1, clock_read_ns/0, mark/3,
         emit/1, json/1, vm_info/0]).

%% Each workload module exports params/0 (every parameter it takes, all
%% required) and either setup/1 (batch: returns a fun(Index) -> {ElapsedNs,
%% Result}) or serve/2 (server, given the stack's module: never returns).
-define(SERVERS, [{"gen_tcp", concbench_http}, {"inets", concbench_httpd},
                  {"yaws", concbench_yaws}]).
-define(WORKLOADS, [{"fanout", concbench_fanout, batch},
                    {"sleep-tasks", concbench_sleep_tasks, batch},
                    {"spawn-idle", concbench_spawn_idle, batch},
                    {"channel", concbench_channel, batch},
                    {"ring", concbench_ring, batch},
                    {"skynet", concbench_skynet, batch},
                    {"http-hello", concbench_hello, server},
                    {"http-aggregate", concbench_aggregate, server}]).

main() ->
    logs_to_stderr(),
    Job = case parse_args(init:get_plain_arguments()) of
              {ok, J} -> J;
              {error, Msg} -> die(2, Msg)
          end,
    %% The job runs in its own process under a monitor, so that any crash in it
    %% (or in a process linked to it) ends the VM with exit 1 and a message,
    %% instead of a crash dump from the boot process.
    {_Pid, Ref} = spawn_monitor(Job),
    receive
        {'DOWN', Ref, process, _, normal} -> erlang:halt(0);
        {'DOWN', Ref, process, _, Reason} -> die(1, io_lib:format("~p", [Reason]))
    end.

%% Logger's default handler writes to standard_io; stdout carries only the JSON
%% lines, so it is replaced by one on standard_error (the SIGTERM notice, for
%% example, goes there).
logs_to_stderr() ->
    Config = case logger:get_handler_config(default) of
                 {ok, C} -> maps:with([level, formatter, filters, filter_default], C);
                 _ -> #{}
             end,
    _ = logger:remove_handler(default),
    ok = logger:add_handler(default, logger_std_h,
                            Config#{config => #{type => standard_error}}).

die(Code, Msg) ->
    io:format(standard_error, "concbench-erlang: ~ts~n", [Msg]),
    erlang:halt(Code).

%% parse_args checks the workload name and that exactly its parameters (plus
%% warmup and iterations for batch workloads) are given, each once, as
%% --name=value. It returns the job to run.
parse_args([]) ->
    {error, "usage: run-erlang [--server=gen_tcp|inets|yaws] <workload> --<param>=<value> ... "
            "[--warmup=<W> --iterations=<N>]"};
parse_args(["--server=" ++ Name | Args]) ->
    case lists:keyfind(Name, 1, ?SERVERS) of
        false -> {error, io_lib:format("--server=~s: want gen_tcp, inets or yaws", [Name])};
        {_, Server} -> parse_args(Args, Server, explicit)
    end;
parse_args(Args) ->
    parse_args(Args, concbench_http, default).

parse_args([], _Server, _) ->
    parse_args([]);
parse_args([Name | Args], Server, Given) ->
    case lists:keyfind(Name, 1, ?WORKLOADS) of
        false ->
            {error, io_lib:format("unknown workload ~p", [Name])};
        {_, _, batch} when Given =:= explicit ->
            {error, io_lib:format("--server is for the http-* workloads, not ~s", [Name])};
        {_, Mod, Kind} ->
            Names = case Kind of
                        batch -> Mod:params() ++ ["warmup", "iterations"];
                        server -> Mod:params()
                    end,
            try
                P = collect(Name, Names, Args, #{}),
                {ok, job(Kind, Mod, P, Server)}
            catch
                throw:{bad_input, Msg} -> {error, Msg}
            end
    end.

job(server, Mod, P, Server) ->
    Serve = Mod:serve(P, Server),
    fun() -> Serve() end;
job(batch, Mod, P, _Server) ->
    Warmup = int(P, "warmup", 0),
    Iterations = int(P, "iterations", 0),
    Run = Mod:setup(P),
    fun() -> batch(Run, Warmup, Iterations, 0) end.

batch(_Run, Warmup, Iterations, I) when I >= Warmup + Iterations ->
    ok;
batch(Run, Warmup, Iterations, I) ->
    %% ring and skynet return {Elapsed, Result, Cpu}: the iteration line's cpu_ns keys
    {Elapsed, Result, Cpu} = case Run(I) of {E, R} -> {E, R, []}; Three -> Three end,
    emit([{type, <<"iteration">>}, {index, I}, {warmup, I < Warmup},
          {elapsed_ns, Elapsed}, {result, Result} | Cpu]),
    batch(Run, Warmup, Iterations, I + 1).

collect(Workload, Names, [], P) ->
    case [N || N <- Names, not maps:is_key(N, P)] of
        [] -> P;
        [Missing | _] -> bad("missing parameter --~s for workload ~s", [Missing, Workload])
    end;
collect(Workload, Names, [Arg | Rest], P) ->
    case string:split(Arg, "=") of
        ["--" ++ Name, Value] when Name =/= "" ->
            case {lists:member(Name, Names), maps:is_key(Name, P)} of
                {false, _} -> bad("unknown parameter --~s for workload ~s", [Name, Workload]);
                {true, true} -> bad("parameter --~s given twice", [Name]);
                {true, false} -> collect(Workload, Names, Rest, P#{Name => Value})
            end;
        _ ->
            bad("malformed argument ~p (want --name=value)", [Arg])
    end.

bad(Fmt, Args) ->
    throw({bad_input, lists:flatten(io_lib:format(Fmt, Args))}).

%% int parses a parameter as a plain decimal integer (digits only) >= Min.
int(P, Name, Min) ->
    S = maps:get(Name, P),
    case S =/= "" andalso lists:all(fun(C) -> C >= $0 andalso C =< $9 end, S) of
        false -> bad("--~s=~s: not a non-negative integer", [Name, S]);
        true ->
            case list_to_integer(S) of
                V when V < Min -> bad("--~s=~s: must be at least ~b", [Name, S, Min]);
                V when V > 16#7fffffffffffffff -> bad("--~s=~s: too large", [Name, S]);
                V -> V
            end
    end.

port(P) ->
    case int(P, "port", 0) of
        Port when Port > 65535 -> bad("--port=~b: not a TCP port", [Port]);
        Port -> Port
    end.

%% ipv4: an IPv4 address literal such as 127.0.0.1 (--bind, --backend-host), as
%% an inet:ip4_address() tuple.
ipv4(P, Name) ->
    S = maps:get(Name, P),
    case inet:parse_ipv4strict_address(S) of
        {ok, Ip} -> Ip;
        {error, einval} -> bad("--~s=~s: not an IPv4 address", [Name, S])
    end.

%% vm_info: what the servers' ready line says about the VM (runtime.cpus is the
%% schedulers online, which follow the affinity mask).
vm_info() ->
    [{cpus, erlang:system_info(schedulers_online)},
     {otp, list_to_binary(erlang:system_info(otp_release))},
     {erts, list_to_binary(erlang:system_info(version))},
     {emu_flavor, atom_to_binary(erlang:system_info(emu_flavor))},
     {process_limit, erlang:system_info(process_limit)}].

now_ns() ->
    erlang:monotonic_time(nanosecond).

-define(CPU_TICK_NS, 10000000).

%% cpu_ns: the VM's CPU time so far, every thread's user + system (utime + stime
%% of /proc/self/stat, in USER_HZ ticks: 100 per second on Linux). Not
%% statistics(runtime): that is user time only (a side check: 3.68 s of it
%% against 3.78 s utime + 2.14 s stime over 300 000 file calls).
cpu_ns() ->
    {ok, Stat} = file:read_file("/proc/self/stat"),
    [_, AfterComm] = binary:split(Stat, <<") ">>),  % comm may hold spaces
    Fields = binary:split(AfterComm, <<" ">>, [global]),
    (binary_to_integer(lists:nth(12, Fields)) + binary_to_integer(lists:nth(13, Fields)))
        * ?CPU_TICK_NS.

%% cpu: the iteration line's cpu_ns / cpu_tick_ns since Start (a cpu_ns()).
cpu(Start) ->
    [{cpu_ns, cpu_ns() - Start}, {cpu_tick_ns, ?CPU_TICK_NS}].

%% clock_read_ns: one erlang:monotonic_time(nanosecond), as ring 1's readings
%% take it, averaged over 10 000 in a row.
clock_read_ns() ->
    Start = now_ns(),
    reads(10000),
    round((now_ns() - Start) / 10000).

reads(0) -> ok;
reads(N) -> _ = erlang:monotonic_time(nanosecond), reads(N - 1).

%% mark prints a mark line; spawn-idle uses it in the middle of an iteration.
mark(Name, Index, ElapsedNs) ->
    emit([{type, <<"mark">>}, {name, Name}, {index, Index}, {elapsed_ns, ElapsedNs}]).

%% emit writes one JSON line with one io request to standard_io; the user I/O
%% server hands it to the stdout port at once (no buffering in between).
emit(Object) ->
    ok = io:put_chars(standard_io, [json(Object), $\n]).

%% json encodes the few shapes this program writes (OTP 25 has no json
%% module): objects as [{Key, Value}] lists, integers, booleans, null, and
%% binaries (ASCII text without characters that need escaping).
json(L) when is_list(L) ->
    [${, lists:join($,, [[$", atom_to_binary(K), $", $:, json(V)] || {K, V} <- L]), $}];
json(I) when is_integer(I) -> integer_to_binary(I);
json(true) -> <<"true">>;
json(false) -> <<"false">>;
json(null) -> <<"null">>;
json(B) when is_binary(B) -> [$", B, $"].
