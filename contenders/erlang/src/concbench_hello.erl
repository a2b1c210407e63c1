%% http-hello (seed 004): GET /hello answers 200, text/plain, a 200-byte body
%% (199 x and a newline) built once at start-up. Unknown paths: 404.
-module(concbench_hello).
-export([params/0, serve/1]).

params() ->
    ["port", "bind", "pool-size"].

serve(P) ->
    Port = concbench:port(P),
    Ip = concbench:ipv4(P, "bind"),
    _ = concbench:int(P, "pool-size", 0),       % validated, then ignored: not pooled
    Body = <<(binary:copy(<<"x">>, 199))/binary, "\n">>,
    Ok = {<<"HTTP/1.1 200 OK\r\n">>,
          <<"Content-Type: text/plain\r\nContent-Length: 200\r\n">>, Body},
    NotFound = concbench_http:not_found(),
    Handler = fun(<<"/hello">>) -> Ok;
                 (<<"/hello?", _/binary>>) -> Ok;
                 (_) -> NotFound
              end,
    concbench_http:serve(Ip, Port, Handler, []).
