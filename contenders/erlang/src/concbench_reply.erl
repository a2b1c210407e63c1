%% The answers every server gives (gen_tcp's concbench_http, inets httpd's
%% concbench_httpd, Yaws' concbench_yaws): a handler returns {Code, ContentType,
%% Body} and each server writes it in its own way, so the stacks answer with the
%% same bodies.
%%
%% Error answers follow docs/contract.md ("Error answers"): a path that is not a
%% route, and /user/{id} whose id is not a user id (digits, 1 to 2^53 - 1), are
%% 404, never 400; a failed downstream call 502; another method 405. The body is
%% the stack's own choice (the harness does not compare it); here every error
%% answer, on both workloads and every stack, is text/plain with its reason
%% phrase in lower case and a newline ("not found\n"), and the connection stays
%% open after it.
-module(concbench_reply).
-export([error/1, not_found/0, reason/1]).
-compile({no_auto_import, [error/1]}).

-type code() :: 200 | 400 | 404 | 405 | 431 | 501 | 502.
-type reply() :: {code(), binary(), binary()}.
-export_type([reply/0]).

-spec not_found() -> reply().
not_found() ->
    error(404).

%% error: the answer for an error status.
-spec error(code()) -> reply().
error(Code) ->
    {Code, <<"text/plain">>, <<(string:lowercase(reason(Code)))/binary, "\n">>}.

%% reason: the reason phrase of the status codes these servers send.
-spec reason(code()) -> binary().
reason(200) -> <<"OK">>;
reason(400) -> <<"Bad Request">>;
reason(404) -> <<"Not Found">>;
reason(405) -> <<"Method Not Allowed">>;
reason(431) -> <<"Request Header Fields Too Large">>;
reason(501) -> <<"Not Implemented">>;
reason(502) -> <<"Bad Gateway">>.
