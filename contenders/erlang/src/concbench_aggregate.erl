%% http-aggregate (seed 003): GET /user/{id} waits for a base call, then for the
%% detail and extra calls concurrently, and answers the user as JSON.
%%
%% The connection's process makes the base call itself, then spawns one linked
%% process per concurrent call (detail, extra); each sends its outcome back as a
%% message and the connection process receives both, then unlinks them. The link
%% ties their life to the connection while they run (a closed connection takes
%% its calls along); a call catches its own errors, which become a 502.
%%
%% downstream=inproc: a call is `receive after Ms` in its process, timed and
%% counted (see waited/3); GET /waits answers the counts.
%% downstream=http: a call is httpc:request/4 (inets, OTP's HTTP client) of
%% GET http://<backend-host>:<backend-port>/delay/<ms>, body read whole as a binary,
%% status 200 required. httpc keeps persistent connections per profile; its
%% defaults (max_sessions 2, max_keep_alive_length 5) would queue calls behind
%% busy connections, so: max_sessions 4096 (persistent connections to the
%% backend), max_keep_alive_length 0 (a call never waits behind another on a busy
%% connection: it takes an idle one, or opens a new one), keep_alive_timeout
%% 120 s (the default). Past 4096 busy connections httpc opens one-shot
%% connections (Connection: close), so the connection count is not capped.
-module(concbench_aggregate).
-export([params/0, serve/2]).

-define(MAX_SESSIONS, 4096).
-define(MAX_ID, (1 bsl 53) - 1).
-define(KINDS, [{base, 1}, {detail, 2}, {extra, 3}]).   % a kind's count; its shortest at + 3
-define(NO_WAIT, 16#FFFFFFFFFFFFFFFF).                 % the shortest before the first wait

params() ->
    ["port", "bind", "base-ms", "detail-ms", "extra-ms", "downstream", "backend-host", "backend-port",
     "pool-size"].

%% serve: Server is the stack's module, concbench_http (gen_tcp),
%% concbench_httpd (inets httpd) or concbench_yaws (Yaws); all take the same
%% handler.
serve(P, Server) ->
    Port = concbench:port(P),
    Ip = concbench:ipv4(P, "bind"),
    [Base, Detail, Extra] = [concbench:int(P, N, 0) || N <- ["base-ms", "detail-ms", "extra-ms"]],
    _ = concbench:int(P, "pool-size", 0),       % validated, then ignored: not pooled
    BackendHost = inet:ntoa(concbench:ipv4(P, "backend-host")),
    BackendPort = concbench:int(P, "backend-port", 0),
    {Calls, Info, Waits} =
        case maps:get("downstream", P) of
            "inproc" ->
                W = new_waits(),
                {{{sleep, Base, 1, W}, {sleep, Detail, 2, W}, {sleep, Extra, 3, W}},
                 [{downstream, <<"inproc">>}], W};
            "http" when BackendPort >= 1, BackendPort =< 65535 ->
                Url = fun(Ms) -> lists:flatten(io_lib:format("http://~s:~b/delay/~b",
                                                             [BackendHost, BackendPort, Ms])) end,
                {{{http, Url(Base)}, {http, Url(Detail)}, {http, Url(Extra)}},
                 [{downstream, <<"http">>},
                  {client_pool, iolist_to_binary(
                                  io_lib:format("inets httpc, max_sessions ~b, "
                                                "max_keep_alive_length 0", [?MAX_SESSIONS]))}],
                 none};
            "http" ->
                concbench:bad("--backend-port=~b: downstream=http needs the backend's port",
                              [BackendPort]);
            Other ->
                concbench:bad("--downstream=~s: want inproc or http", [Other])
        end,
    NotFound = concbench_reply:not_found(),
    Handler = fun(<<"/user/", Id/binary>>) ->
                      case user_id(Id) of
                          error -> NotFound;
                          N -> handle(N, Calls)
                      end;
                 (<<"/waits">>) when Waits =/= none ->   % downstream=inproc only
                      {200, <<"application/json">>, waits_json(Waits)};
                 (_) -> NotFound
              end,
    Serve = Server:serve(Ip, Port, Handler, Info),
    fun() ->
            element(1, element(1, Calls)) =:= http andalso start_client(),
            Serve()
    end.

start_client() ->
    {ok, _} = application:ensure_all_started(inets),
    ok = httpc:set_options([{max_sessions, ?MAX_SESSIONS}, {max_keep_alive_length, 0},
                            {keep_alive_timeout, 120000}]).

%% user_id: a user id as docs/contract.md's "Error answers" defines it: digits only
%% (leading zeros allowed: 007 is 7; a query string is ignored), from 1 to
%% 2^53 - 1, the integers every JSON reader holds exactly. Anything else: error (404).
user_id(Bin) ->
    [Digits | _] = binary:split(Bin, <<"?">>),
    try binary_to_integer(Digits) of
        N when N >= 1, N =< ?MAX_ID, Digits =/= <<>> ->
            case lists:all(fun(C) -> C >= $0 andalso C =< $9 end, binary_to_list(Digits)) of
                true -> N;
                false -> error
            end;
        _ -> error
    catch
        error:badarg -> error
    end.

handle(Id, {Base, Detail, Extra}) ->
    Self = self(),
    Outcome = case call(Base) of
                  ok ->
                      DetailPid = spawn_link(fun() -> Self ! {detail, call(Detail)} end),
                      ExtraPid = spawn_link(fun() -> Self ! {extra, call(Extra)} end),
                      receive {detail, D} -> ok end,
                      receive {extra, E} -> ok end,
                      ok = unlink_done(DetailPid),
                      ok = unlink_done(ExtraPid),
                      {D, E};
                  Error ->
                      Error
              end,
    case Outcome of
        {ok, ok} ->
            {200, <<"application/json">>, user_json(Id)};
        _ ->
            concbench_reply:error(502)
    end.

%% unlink_done: drop the link to a call that has answered, and its exit signal if
%% it already came as a message. httpd's request handler traps exits and stops
%% (closing the connection) on any {'EXIT', _, _}, even a normal one; Yaws'
%% connection process traps exits while it serves a request (and flushes its
%% mailbox after each); the gen_tcp connection process does not trap exits, so
%% there is nothing to flush there.
unlink_done(Pid) ->
    true = unlink(Pid),
    receive {'EXIT', Pid, _} -> ok after 0 -> ok end.

call({sleep, Ms, Kind, Waits}) ->
    T0 = erlang:monotonic_time(nanosecond),
    receive after Ms -> ok end,
    waited(Waits, Kind, erlang:monotonic_time(nanosecond) - T0);
call({http, Url}) ->
    try httpc:request(get, {Url, []}, [{autoredirect, false}], [{body_format, binary}]) of
        {ok, {{_, 200, _}, _Headers, _Body}} -> ok;
        Other -> {error, Other}
    catch
        Class:Reason -> {error, {Class, Reason}}
    end.

%% Proof of the waits (docs/contract.md, http-aggregate): each in-process wait is
%% counted by kind (base, detail, extra) and the shortest of each kept, timed on
%% the monotonic clock from just before its `receive after` to just after it, so
%% GET /waits shows one real wait of each kind per answered request, none
%% shorter than asked. One atomics array shared by every process (no message,
%% no lock): an atomic add for the count, and for the shortest a read that
%% rarely finds a longer one, then a compare-and-swap retried only if another
%% process wrote in between. Recorded before the call's outcome is sent, so a
%% request's waits are all counted by the time it is answered.
new_waits() ->
    Waits = atomics:new(6, [{signed, false}]),
    [atomics:put(Waits, Ix + 3, ?NO_WAIT) || {_, Ix} <- ?KINDS],
    Waits.

waited(Waits, Kind, Ns) ->
    atomics:add(Waits, Kind, 1),
    keep_shortest(Waits, Kind + 3, Ns, atomics:get(Waits, Kind + 3)).

keep_shortest(Waits, Ix, Ns, Shortest) when Ns < Shortest ->
    case atomics:compare_exchange(Waits, Ix, Shortest, Ns) of
        ok -> ok;
        Seen -> keep_shortest(Waits, Ix, Ns, Seen)
    end;
keep_shortest(_Waits, _Ix, _Ns, _Shortest) ->
    ok.

%% waits_json: {"base": {"count": n, "min_us": m}, ...}, totals since start
%% (min_us null before the first wait of a kind).
waits_json(Waits) ->
    Kind = fun({Name, Ix}) ->
                   Min = case atomics:get(Waits, Ix + 3) of
                             ?NO_WAIT -> <<"null">>;
                             Ns -> integer_to_binary(Ns div 1000)
                         end,
                   [$", atom_to_binary(Name), <<"\":{\"count\":">>,
                    integer_to_binary(atomics:get(Waits, Ix)), <<",\"min_us\":">>, Min, $}]
           end,
    iolist_to_binary([${, lists:join($,, lists:map(Kind, ?KINDS)), $}]).

user_json(Id) ->
    I = integer_to_binary(Id),
    <<"{\"id\":", I/binary, ",\"name\":\"User-", I/binary,
      "\",\"age\":25,\"sex\":1,\"phone\":\"13800138000\",\"level\":\"",
      "VIP会员"/utf8, "\"}">>.
