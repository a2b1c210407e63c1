%% The HTTP/1.1 server of the http-* workloads, on OTP's gen_tcp only.
%%
%% One process per connection, as ranch/cowboy and every Erlang server do:
%% ?ACCEPTORS processes block in gen_tcp:accept/1 on the listen socket; the one
%% that gets a connection first spawns its replacement, then serves that
%% connection itself (it already owns the socket) until it closes. Connection
%% processes are not linked: a crash ends that connection only.
%%
%% Sockets are passive ({active, false}): the connection process calls
%% gen_tcp:recv/3 and parses what arrived with erlang:decode_packet/3 (types
%% http_bin and httph_bin), the same C parser that {packet, http_bin} runs in
%% the port driver, but one recv per read instead of one per header line (as
%% elli does). Keep-alive and pipelining: bytes after one request start the next.
%% Responses carry Content-Length and a Date header (cached per second in a
%% public ETS table with read_concurrency, as cowboy_clock does); one
%% gen_tcp:send/2 of an iolist per response.
-module(concbench_http).
-export([serve/4]).

-define(ACCEPTORS, 10).          % ranch's default num_acceptors
-define(IDLE_TIMEOUT, 60000).    % close a connection idle this long (cowboy's idle_timeout)
-define(MAX_HEAD, 65536).        % request line + headers larger than this: 431
-define(DATE_TABLE, concbench_http_date).

-record(req, {method, uri, vsn, connection = <<>>, length = 0, chunked = false}).

%% serve returns the job: bind Ip:Port only, start the acceptors, print
%% the ready line, then wait (this process owns the listen socket and the date
%% table). Handler(Path) of a GET returns {Code, ContentType, Body}
%% (concbench_reply). SIGTERM: halt with exit 0 (concbench_sigterm).
serve(Ip, Port, Handler, Info) ->
    fun() ->
            concbench_sigterm:install(),
            {ok, Listen} = gen_tcp:listen(Port, [binary, {ip, Ip}, {packet, raw},
                                                 {active, false}, {reuseaddr, true},
                                                 {backlog, 4096}, {nodelay, true}]),
            {ok, Bound} = inet:port(Listen),
            ?DATE_TABLE = ets:new(?DATE_TABLE, [named_table, public, {read_concurrency, true}]),
            ets:insert(?DATE_TABLE, {date, date_line()}),
            spawn_link(fun() -> clock(?DATE_TABLE) end),
            [spawn(fun() -> acceptor(Listen, Handler) end) || _ <- lists:seq(1, ?ACCEPTORS)],
            Runtime = concbench:vm_info() ++
                [{server, <<"gen_tcp, one process per connection">>},
                 {acceptors, ?ACCEPTORS} | Info],
            concbench:emit([{type, <<"ready">>}, {port, Bound}, {runtime, Runtime}]),
            receive after infinity -> ok end
    end.

clock(Table) ->
    receive after 1000 -> ok end,
    ets:insert(Table, {date, date_line()}),
    clock(Table).

date_line() ->
    {{Y, Mo, D}, {H, Mi, S}} = calendar:universal_time(),
    Day = element(calendar:day_of_the_week(Y, Mo, D),
                  {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}),
    Month = element(Mo, {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                         "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}),
    iolist_to_binary(io_lib:format("Date: ~s, ~2..0b ~s ~4..0b ~2..0b:~2..0b:~2..0b GMT\r\n",
                                   [Day, D, Month, Y, H, Mi, S])).

acceptor(Listen, Handler) ->
    case gen_tcp:accept(Listen) of
        {ok, Socket} ->
            spawn(fun() -> acceptor(Listen, Handler) end),
            request(Socket, Handler, <<>>);
        {error, closed} ->
            ok;
        {error, _} ->              % e.g. emfile: back off, then accept again (ranch does too)
            receive after 10 -> ok end,
            acceptor(Listen, Handler)
    end.

%% request parses the request line at the start of Buf (reading more as needed).
request(Socket, Handler, Buf) ->
    case erlang:decode_packet(http_bin, Buf, []) of
        {ok, {http_request, Method, Uri, Vsn}, Rest} ->
            headers(Socket, Handler, Rest, #req{method = Method, uri = Uri, vsn = Vsn});
        {more, _} when byte_size(Buf) > ?MAX_HEAD ->
            fail(Socket, 431);
        {more, _} ->
            case gen_tcp:recv(Socket, 0, ?IDLE_TIMEOUT) of
                {ok, Data} when Buf =:= <<>> -> request(Socket, Handler, Data);
                {ok, Data} -> request(Socket, Handler, <<Buf/binary, Data/binary>>);
                {error, _} -> gen_tcp:close(Socket)
            end;
        _ ->
            fail(Socket, 400)
    end.

headers(Socket, Handler, Buf, Req) ->
    case erlang:decode_packet(httph_bin, Buf, []) of
        {ok, {http_header, _, 'Connection', _, Value}, Rest} ->
            headers(Socket, Handler, Rest, Req#req{connection = string:lowercase(Value)});
        {ok, {http_header, _, 'Content-Length', _, Value}, Rest} ->
            case string:to_integer(Value) of
                {N, <<>>} when N >= 0 -> headers(Socket, Handler, Rest, Req#req{length = N});
                _ -> fail(Socket, 400)
            end;
        {ok, {http_header, _, 'Transfer-Encoding', _, _}, Rest} ->
            headers(Socket, Handler, Rest, Req#req{chunked = true});
        {ok, {http_header, _, _, _, _}, Rest} ->
            headers(Socket, Handler, Rest, Req);
        {ok, http_eoh, Rest} ->
            body(Socket, Handler, Rest, Req);
        {more, _} when byte_size(Buf) > ?MAX_HEAD ->
            fail(Socket, 431);
        {more, _} ->
            case gen_tcp:recv(Socket, 0, ?IDLE_TIMEOUT) of
                {ok, Data} -> headers(Socket, Handler, <<Buf/binary, Data/binary>>, Req);
                {error, _} -> gen_tcp:close(Socket)
            end;
        _ ->
            fail(Socket, 400)
    end.

%% body skips a Content-Length body (the routes take none); chunked bodies are
%% not supported: 501 and close.
body(Socket, _Handler, _Buf, #req{chunked = true}) ->
    fail(Socket, 501);
body(Socket, Handler, Buf, #req{length = N} = Req) when byte_size(Buf) >= N ->
    <<_:N/binary, Rest/binary>> = Buf,
    respond(Socket, Handler, Rest, Req);
body(Socket, Handler, Buf, #req{length = N} = Req) ->
    case gen_tcp:recv(Socket, N - byte_size(Buf), ?IDLE_TIMEOUT) of
        {ok, _} -> respond(Socket, Handler, <<>>, Req);
        {error, _} -> gen_tcp:close(Socket)
    end.

respond(Socket, Handler, Rest, #req{method = Method, uri = Uri, vsn = Vsn, connection = C}) ->
    Keep = keep_alive(Vsn, C),
    {Code, Type, Body} =
        case {Method, Uri} of
            {'GET', {abs_path, Path}} -> Handler(Path);
            {'GET', {absoluteURI, _Scheme, _Host, _Port, Path}} -> Handler(Path);
            {'GET', _} -> concbench_reply:error(400);   % '*' or a URI decode_packet leaves unparsed
            _ -> concbench_reply:error(405)
        end,
    Allow = case Code of
                405 -> <<"Allow: GET\r\n">>;
                _ -> <<>>
            end,
    Connection = case {Keep, Vsn} of
                     {false, _} -> <<"Connection: close\r\n">>;
                     {true, {1, 0}} -> <<"Connection: keep-alive\r\n">>;
                     {true, _} -> <<>>
                 end,
    Date = ets:lookup_element(?DATE_TABLE, date, 2),
    case gen_tcp:send(Socket, [head(Code, Type, Body), Allow, Date, Connection, <<"\r\n">>, Body]) of
        ok when Keep -> request(Socket, Handler, Rest);
        _ -> gen_tcp:close(Socket)
    end.

%% HTTP/1.1 keeps the connection unless the client says close; 1.0 closes it
%% unless the client says keep-alive.
keep_alive({1, 1}, <<>>) -> true;
keep_alive({1, 1}, C) -> binary:match(C, <<"close">>) =:= nomatch;
keep_alive({1, 0}, C) -> binary:match(C, <<"keep-alive">>) =/= nomatch;
keep_alive(_, _) -> false.

%% fail answers a request that cannot be served (malformed, too large, chunked)
%% and closes the connection.
fail(Socket, Code) ->
    {Code, Type, Body} = concbench_reply:error(Code),
    _ = gen_tcp:send(Socket, [head(Code, Type, Body), ets:lookup_element(?DATE_TABLE, date, 2),
                              <<"Connection: close\r\n\r\n">>, Body]),
    gen_tcp:close(Socket).

%% head: the status line, Content-Type and Content-Length of a reply.
head(Code, Type, Body) ->
    [<<"HTTP/1.1 ">>, integer_to_binary(Code), $\s, concbench_reply:reason(Code),
     <<"\r\nContent-Type: ">>, Type, <<"\r\nContent-Length: ">>,
     integer_to_binary(byte_size(Body)), <<"\r\n">>].
