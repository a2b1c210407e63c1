%% http-hello (seed 004): GET /hello answers 200, text/plain, a 200-byte body
%% (199 x and a newline) built once at start-up. Unknown paths: 404.
-module(concbench_hello).
-export([params/0, serve/2]).

params() ->
    ["port", "bind", "pool-size"].

%% serve: Server is the stack's module, concbench_http (gen_tcp),
%% concbench_httpd (inets httpd) or concbench_yaws (Yaws); all take the same
%% handler.
serve(P, Server) ->
    Port = concbench:port(P),
    Ip = concbench:ipv4(P, "bind"),
    _ = concbench:int(P, "pool-size", 0),       % validated, then ignored: not pooled
    Ok = {200, <<"text/plain">>, <<(binary:copy(<<"x">>, 199))/binary, "\n">>},
    NotFound = concbench_reply:not_found(),
    Handler = fun(<<"/hello">>) -> Ok;
                 (<<"/hello?", _/binary>>) -> Ok;
                 (_) -> NotFound
              end,
    Server:serve(Ip, Port, Handler, []).
