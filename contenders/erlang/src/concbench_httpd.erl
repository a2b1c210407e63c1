%% The http-* workloads on OTP's own HTTP server, inets httpd (erlang-inets).
%%
%% httpd runs one acceptor process and one request-handler process per
%% connection, parses every request into a full header list (httpd_request) and
%% passes it through the `modules` chain of its configuration, Apache style.
%% This module is that chain's only member: its do/1 is the Erlang Web Server
%% API callback, given the parsed request (#mod{}) and returning the whole
%% response with {response, Head, Body}, Content-Length set, which httpd writes
%% as one header block and one body (no chunked encoding).
%%
%% Why a callback module rather than mod_esi: an ESI function streams its answer
%% with mod_esi:deliver/2 (headers parsed back out of the first chunk, then the
%% body chunked on HTTP/1.1 when no length is known), and mod_alias/mod_esi
%% would first map every path through erl_script_alias. A module in `modules`
%% is httpd's documented way to answer from Erlang code; with it alone in the
%% chain no request looks at the file system (no mod_alias, mod_get, mod_log).
%%
%% The handler (the workload's routes, shared with the gen_tcp server) is kept
%% in persistent_term: httpd calls do/1 with its own record only, and a
%% persistent_term read is a lookup without copying.
-module(concbench_httpd).
-export([serve/4]).
-export([do/1]).

-include_lib("inets/include/httpd.hrl").

-define(HANDLER, {?MODULE, handler}).
-define(MAX_CLIENTS, 1048576).      % connections at once; httpd's default 150 answers the rest 503
-define(KEEP_ALIVE_TIMEOUT_S, 60).
-define(BACKLOG, 4096).             % as the gen_tcp server and nginx; httpd's default 128  % as the gen_tcp server (cowboy's idle_timeout); httpd's default 150

%% serve returns the job: start inets and one httpd bound to Ip:Port only, print
%% the ready line, then wait. SIGTERM: halt with exit 0 (concbench_sigterm).
serve(Ip, Port, Handler, Info) ->
    fun() ->
            concbench_sigterm:install(),
            persistent_term:put(?HANDLER, Handler),
            nodelay_by_default(),
            {ok, _} = application:ensure_all_started(inets),
            {ok, Pid} = inets:start(httpd, config(Ip, Port)),
            [{port, Bound}] = httpd:info(Pid, [port]),
            Runtime = concbench:vm_info() ++
                [{server, <<"inets httpd, one request-handler process per connection">>},
                 {inets, inets_version()},
                 {httpd, [{modules, <<"concbench_httpd">>}, {max_clients, ?MAX_CLIENTS},
                          {backlog, 128}, {nodelay, true},
                          {keep_alive_timeout_s, ?KEEP_ALIVE_TIMEOUT_S}]} | Info],
            concbench:emit([{type, <<"ready">>}, {port, Bound}, {runtime, Runtime}]),
            receive after infinity -> ok end
    end.

%% config: httpd's service configuration. server_root and document_root must
%% name existing directories (httpd checks them at start-up); with no mod_get or
%% mod_alias in `modules` nothing is ever read from them, so they are this
%% program's ebin directory. Keep-alive is on (httpd's default) with no limit on
%% requests per connection (max_keep_alive_request unset: httpd's default);
%% no log files are configured, so httpd logs nothing per request.
config(Ip, Port) ->
    Dir = filename:dirname(code:which(?MODULE)),
    [{port, Port}, {bind_address, Ip}, {ipfamily, inet},
     {server_name, "concbench"}, {server_root, Dir}, {document_root, Dir},
     {modules, [?MODULE]},
     {mime_types, [{"txt", "text/plain"}]},
     {keep_alive, true}, {keep_alive_timeout, ?KEEP_ALIVE_TIMEOUT_S},
     {max_clients, ?MAX_CLIENTS}].

%% nodelay_by_default: TCP_NODELAY on the listen sockets this VM opens from now
%% on (kernel's inet_default_listen_options; accepted sockets inherit it). httpd
%% writes a response's header block and its body as two sends, and without
%% TCP_NODELAY Nagle holds the body until the client's delayed ACK of the header
%% arrives: ~40 ms a response (5k requests/s at 256 connections). OTP 25's httpd
%% cannot be given listen options: its {socket_type, {ip_comm, Opts}} reaches a
%% http_transport:listen/4 with no clause for it (function_clause at start-up),
%% so the kernel default is the way in. The listen backlog stays httpd's fixed
%% 128 (an explicit option, which a default cannot override).
nodelay_by_default() ->
    Defaults = application:get_env(kernel, inet_default_listen_options, []),
    ok = application:set_env(kernel, inet_default_listen_options,
                             [{nodelay, true} | lists:keydelete(nodelay, 1, Defaults)]).

inets_version() ->
    {ok, Vsn} = application:get_key(inets, vsn),
    list_to_binary(Vsn).

%% do: the httpd module callback. A GET goes to the workload's handler (the
%% request target with its query, as the gen_tcp server passes it); other
%% methods get 405.
do(#mod{method = "GET", request_uri = Uri}) ->
    Handler = persistent_term:get(?HANDLER),
    {break, [{response, response(Handler(list_to_binary(Uri)), [])}]};
do(#mod{}) ->
    {break, [{response, response(concbench_reply:error(405), [{"allow", "GET"}])}]}.

response({Code, Type, Body}, Extra) ->
    {response, [{code, Code}, {content_type, binary_to_list(Type)},
                {content_length, integer_to_list(byte_size(Body))} | Extra], [Body]}.
