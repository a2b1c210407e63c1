%% SIGTERM for the servers: halt at once with exit 0.
%%
%% The BEAM's default (kernel's erl_signal_handler in the erl_signal_server event
%% manager) calls init:stop(), an orderly stop of every application, and also
%% exits 0. Under load that stop lets inets' httpc manager die with requests still
%% queued, which floods stderr with crash reports and takes about a second. The
%% contract lets in-flight requests drop, so this handler replaces the default one
%% (gen_event:swap_handler, the documented way to change OTP's signal handling)
%% and calls erlang:halt(0), which flushes pending output and exits.
-module(concbench_sigterm).
-behaviour(gen_event).
-export([install/0]).
-export([init/1, handle_event/2, handle_call/2, handle_info/2]).

install() ->
    ok = gen_event:swap_handler(erl_signal_server, {erl_signal_handler, []}, {?MODULE, []}).

init(_) ->
    {ok, []}.

handle_event(sigterm, State) ->
    io:format(standard_error, "concbench-erlang: SIGTERM received, halting~n", []),
    erlang:halt(0),
    {ok, State};
handle_event(_Signal, State) ->
    {ok, State}.

handle_call(_Request, State) ->
    {ok, ok, State}.

handle_info(_Info, State) ->
    {ok, State}.
