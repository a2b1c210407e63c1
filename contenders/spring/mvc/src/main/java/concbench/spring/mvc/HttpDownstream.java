package concbench.spring.mvc;

import concbench.spring.AggregateProperties;
import concbench.spring.ConditionalOnAggregate;
import concbench.spring.DownstreamException;
import concbench.spring.UserDetail;
import concbench.spring.UserExtraInfo;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;

/**
 * downstream=http: GET http://<backend-host>:<backend-port>/delay/<ms> with Spring's RestClient (built
 * from Boot's RestClient.Builder, so on the pooled Apache HttpClient 5 request factory of
 * {@link HttpClientConfig}), blocking the calling thread. The whole body is read as a String;
 * a status other than 200 becomes a 502.
 */
@Component
@ConditionalOnAggregate
@ConditionalOnProperty(name = "concbench.downstream", havingValue = "http")
public class HttpDownstream implements Downstream {
    private final AggregateProperties p;
    private final RestClient restClient;

    public HttpDownstream(AggregateProperties p, RestClient.Builder builder) {
        this.p = p;
        this.restClient = builder.baseUrl("http://" + p.backendHost() + ":" + p.backendPort()).build();
    }

    @Override
    public long getUserBaseInfo(long id) {
        call(p.baseMs());
        return id;
    }

    @Override
    public UserDetail getUserDetailInfo(long userId) {
        call(p.detailMs());
        return UserDetail.of(userId);
    }

    @Override
    public UserExtraInfo getUserExtraInfo(long userId) {
        call(p.extraMs());
        return UserExtraInfo.of(userId);
    }

    private String call(long ms) {
        return restClient.get()
                .uri("/delay/{ms}", ms)
                .retrieve()
                .onStatus(status -> status.value() != HttpStatus.OK.value(), (request, response) -> {
                    throw new DownstreamException("backend answered " + response.getStatusCode());
                })
                .body(String.class);
    }
}
