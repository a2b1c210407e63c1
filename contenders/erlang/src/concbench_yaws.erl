%% The http-* workloads on Yaws 2.1.1 in embedded mode (erlang-yaws).
%%
%% Yaws is a production Erlang web server (Debian's erlang-yaws). Embedded
%% mode is Yaws' documented way to run it inside another application:
%% yaws:start_embedded/4 starts the yaws application with a configuration built
%% here (no yaws.conf is read, no control socket or daemon is started) and
%% returns once the server listens. One server, bound to <bind>:P only, with one
%% appmod on "/": Yaws' own way to hand every request path to Erlang code. Its
%% out/1 gets the parsed request (#arg{}) and returns the answer as
%% [{status, Code}, {content, Type, Body}], which Yaws writes with its own
%% headers (Content-Length, Date, Server) as one send.
%%
%% Yaws keeps a small pool of acceptor processes; the one that accepts a
%% connection serves it for its whole life (keep-alive, one request after the
%% other) and a new acceptor takes its place: one process per connection, as
%% the gen_tcp server and httpd. Its request parser is the VM's {packet, http}
%% (one recv per header line, the C parser in the port driver).
%%
%% No Yaws header is included: the records are read with yaws_api's accessors
%% and the configuration through yaws:gconf_*/sconf_*, so the Erlang build does
%% not need Yaws; only a run with --server=yaws does (run-erlang adds Debian's
%% /usr/lib/yaws/ebin to the code path).
%%
%% The handler (the workload's routes, shared with the gen_tcp and httpd
%% servers) is kept in persistent_term: Yaws calls out/1 with its #arg{} only.
-module(concbench_yaws).
-export([serve/4]).
-export([out/1]).

-define(HANDLER, {?MODULE, handler}).
-define(ID, "concbench").
-define(KEEPALIVE_TIMEOUT_MS, 60000).   % as the gen_tcp server and httpd (cowboy's idle_timeout); Yaws' default 30 s
-define(BACKLOG, 4096).                 % as the gen_tcp server and nginx; Yaws' default 1024
%% Flag bits of Yaws 2.1.1's yaws.hrl (not included, see above), to read the
%% running configuration back.
-define(GC_COPY_ERRLOG, 4).
-define(SC_ACCESS_LOG, 1).
-define(SC_AUTH_LOG, 2).
-define(SC_DEFLATE, 64).

%% serve returns the job: start Yaws embedded, bound to Ip:Port only, print the
%% ready line (with the settings read back from the running server), then wait.
%% SIGTERM: halt with exit 0 (concbench_sigterm).
serve(Ip, Port, Handler, Info) ->
    fun() ->
            concbench_sigterm:install(),
            yaws_found(),
            persistent_term:put(?HANDLER, Handler),
            %% docroot, logdir: Yaws wants a directory for each; with every log off
            %% and the appmod on "/" nothing is read from or written to them
            Dir = filename:dirname(code:which(?MODULE)),
            ok = yaws:start_embedded(Dir, server_conf(Ip, Port), global_conf(Dir), ?ID),
            {ok, GC, Groups} = yaws_api:getconf(),
            [SC] = [S || Group <- Groups, S <- Group, yaws:sconf_listen(S) =:= Ip,
                         yaws:sconf_port(S) =:= Port],
            Runtime = concbench:vm_info() ++
                [{server, <<"yaws embedded, an appmod on /, one process per connection">>},
                 {yaws, yaws_version()},
                 {yaws_config, read_back(GC, SC)} | Info],
            concbench:emit([{type, <<"ready">>}, {port, yaws:sconf_port(SC)},
                            {runtime, Runtime}]),
            receive after infinity -> ok end
    end.

%% server_conf: the one server (an #sconf{} as a property list). Access and
%% auth logs off (both default on: a file write per request); listen options:
%% backlog 4096 and TCP_NODELAY (Yaws' listen_opts; accepted sockets inherit
%% them). Everything else at Yaws' defaults: no deflate, no statistics, no
%% dir listings, partial_post_size 10240.
server_conf(Ip, Port) ->
    [{port, Port}, {listen, Ip}, {servername, "concbench"},
     {appmods, [{"/", ?MODULE}]},
     {flags, [{access_log, false}, {auth_log, false}]},
     {soptions, [{listen_opts, [{backlog, ?BACKLOG}, {nodelay, true}]}]}].

%% global_conf: the #gconf{} as a property list. copy_error_log off (Yaws'
%% advice in embedded mode, where the host application owns error logging: on,
%% Yaws adds a logger handler writing report.log into logdir); keep-alive 60 s;
%% no extra ebin or include directories (the defaults point into Yaws' examples).
%% Left at Yaws' defaults: max_connections and keepalive_maxuses nolimit,
%% acceptor_pool_size 8, process_options [] (the VM's spawn defaults).
global_conf(Dir) ->
    [{id, ?ID}, {logdir, Dir}, {ebin_dir, []}, {include_dir, []},
     {flags, [{copy_errlog, false}]},
     {keepalive_timeout, ?KEEPALIVE_TIMEOUT_MS}].

%% read_back: the settings of the running server, for the ready line.
read_back(GC, SC) ->
    ListenOpts = proplists:get_value(listen_opts, yaws:sconf_spotions(SC), []),
    Flags = yaws:sconf_flags(SC),
    [{appmods, iolist_to_binary(lists:join(", ", [[element(1, A), " -> ", atom_to_binary(element(2, A))]
                                                   || A <- yaws:sconf_appmods(SC)]))},
     {acceptor_pool_size, yaws:gconf_acceptor_pool_size(GC)},
     {max_connections, value(yaws:gconf_max_connections(GC))},
     {keepalive_timeout_ms, value(yaws:gconf_keepalive_timeout(GC))},
     {keepalive_maxuses, value(yaws:gconf_keepalive_maxuses(GC))},
     {backlog, value(proplists:get_value(backlog, ListenOpts))},
     {nodelay, value(proplists:get_value(nodelay, ListenOpts))},
     {access_log, Flags band ?SC_ACCESS_LOG =/= 0},
     {auth_log, Flags band ?SC_AUTH_LOG =/= 0},
     {deflate, Flags band ?SC_DEFLATE =/= 0},
     {copy_error_log, yaws:gconf_flags(GC) band ?GC_COPY_ERRLOG =/= 0},
     {process_options, value(yaws:gconf_process_options(GC))}].

value(I) when is_integer(I); is_boolean(I) -> I;
value(undefined) -> null;
value(A) when is_atom(A) -> atom_to_binary(A);
value(T) -> iolist_to_binary(io_lib:format("~p", [T])).

%% yaws_found: Yaws on the code path, or exit 1 saying what to install.
yaws_found() ->
    case code:ensure_loaded(yaws) of
        {module, yaws} ->
            ok;
        {error, _} ->
            io:format(standard_error, "concbench-erlang: yaws not found on the code path "
                      "(apt-get install -y erlang-yaws: /usr/lib/yaws/ebin)~n", []),
            erlang:halt(1)
    end.

yaws_version() ->
    {ok, Vsn} = application:get_key(yaws, vsn),
    list_to_binary(Vsn).

%% out: the appmod callback, for every request of every path. A GET goes to the
%% workload's handler (the request target with its query, as the gen_tcp server
%% passes it); other methods get 405 with Allow: GET.
out(Arg) ->
    Req = yaws_api:arg_req(Arg),
    case {yaws_api:http_request_method(Req), yaws_api:http_request_path(Req)} of
        {'GET', {abs_path, Path}} ->
            Handler = persistent_term:get(?HANDLER),
            reply(Handler(list_to_binary(Path)), []);
        {'GET', _} ->             % '*' or a URI {packet, http} leaves unparsed
            reply(concbench_reply:error(400), []);
        _ ->
            reply(concbench_reply:error(405), [{header, {"Allow", "GET"}}])
    end.

reply({Code, Type, Body}, Extra) ->
    [{status, Code}, {content, Type, Body} | Extra].
