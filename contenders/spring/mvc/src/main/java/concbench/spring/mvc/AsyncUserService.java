package concbench.spring.mvc;

import concbench.spring.ConditionalOnAggregate;
import concbench.spring.User;
import concbench.spring.UserDetail;
import concbench.spring.UserExtraInfo;
import java.util.concurrent.CompletableFuture;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Profile;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.stereotype.Service;

/**
 * Seed 003's final platform-thread design (assembleUserOptimized): base on the Tomcat thread, then
 * detail and extra as CompletableFuture.supplyAsync on the "highPerformanceExecutor"
 * ThreadPoolTaskExecutor, then get() both. With CallerRunsPolicy a rejected task runs on the
 * Tomcat thread itself (sequentially): that and the queue in front of a small pool are the seed's
 * collapse mechanism, kept as is.
 */
@Service
@Profile("async")
@ConditionalOnAggregate
public class AsyncUserService implements UserService {
    private final Downstream downstream;
    private final ThreadPoolTaskExecutor highPerformanceExecutor;

    public AsyncUserService(Downstream downstream,
            @Qualifier("highPerformanceExecutor") ThreadPoolTaskExecutor highPerformanceExecutor) {
        this.downstream = downstream;
        this.highPerformanceExecutor = highPerformanceExecutor;
    }

    @Override
    public User assembleUser(long id) throws Exception {
        long userId = downstream.getUserBaseInfo(id);
        CompletableFuture<UserDetail> detailFuture = CompletableFuture.supplyAsync(
                () -> downstream.getUserDetailInfo(userId), highPerformanceExecutor);
        CompletableFuture<UserExtraInfo> extraFuture = CompletableFuture.supplyAsync(
                () -> downstream.getUserExtraInfo(userId), highPerformanceExecutor);
        UserDetail detail = Futures.get(detailFuture);
        UserExtraInfo extra = Futures.get(extraFuture);
        return User.assemble(userId, detail, extra);
    }
}
