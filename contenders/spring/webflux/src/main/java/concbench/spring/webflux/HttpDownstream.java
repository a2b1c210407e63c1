package concbench.spring.webflux;

import concbench.spring.AggregateProperties;
import concbench.spring.ConditionalOnAggregate;
import concbench.spring.DownstreamException;
import concbench.spring.UserDetail;
import concbench.spring.UserExtraInfo;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;

/**
 * downstream=http: GET http://<backend-host>:<backend-port>/delay/<ms> with WebClient (Boot's
 * WebClient.Builder, on the Reactor Netty connector of {@link WebClientConfig}); the whole body
 * is read as a String; a status other than 200 becomes a 502.
 */
@Component
@ConditionalOnAggregate
@ConditionalOnProperty(name = "concbench.downstream", havingValue = "http")
public class HttpDownstream implements UserController.ReactiveDownstream {
    private final AggregateProperties p;
    private final WebClient webClient;

    public HttpDownstream(AggregateProperties p, WebClient.Builder builder) {
        this.p = p;
        this.webClient = builder.baseUrl("http://" + p.backendHost() + ":" + p.backendPort()).build();
    }

    @Override
    public Mono<Long> getUserBaseInfo(long id) {
        return call(p.baseMs()).thenReturn(id);
    }

    @Override
    public Mono<UserDetail> getUserDetailInfo(long userId) {
        return call(p.detailMs()).map(body -> UserDetail.of(userId));
    }

    @Override
    public Mono<UserExtraInfo> getUserExtraInfo(long userId) {
        return call(p.extraMs()).map(body -> UserExtraInfo.of(userId));
    }

    private Mono<String> call(long ms) {
        return webClient.get()
                .uri("/delay/{ms}", ms)
                .retrieve()
                .onStatus(status -> status.value() != HttpStatus.OK.value(), response ->
                        Mono.error(new DownstreamException("backend answered " + response.statusCode())))
                .bodyToMono(String.class);
    }
}
