/* Binds each outgoing IPv4 TCP connection of a load generator to one of several source
 * addresses, in turn (LD_PRELOAD; server/loadgen/source_bind.py builds it).
 *
 * One source address holds at most the ephemeral port range's size of connections to one
 * server address and port (about 28 000 by default); oha cannot choose its source address, so
 * this library's connect() binds the socket first, to the next address of
 * CONCBENCH_SOURCE_ADDRS (comma-separated), with IP_BIND_ADDRESS_NO_PORT so the kernel still
 * picks the port at connect time, per destination. A bind that fails fails the connect, so a
 * wrong address shows as connect errors rather than as connections from another address.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#ifndef IP_BIND_ADDRESS_NO_PORT
#define IP_BIND_ADDRESS_NO_PORT 24
#endif
#define MAX_SOURCES 64

static struct in_addr sources[MAX_SOURCES];
static int n_sources;
static atomic_uint next_source;
static int (*real_connect)(int, const struct sockaddr *, socklen_t);

/* Read once, before any thread of the generator exists. */
__attribute__((constructor)) static void load_sources(void) {
    const char *env = getenv("CONCBENCH_SOURCE_ADDRS");
    char buf[4096];
    real_connect = dlsym(RTLD_NEXT, "connect");
    if (env == NULL || strlen(env) >= sizeof buf)
        return;
    strcpy(buf, env);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok && n_sources < MAX_SOURCES;
         tok = strtok_r(NULL, ",", &save)) {
        if (inet_pton(AF_INET, tok, &sources[n_sources]) == 1)
            n_sources++;
    }
}

static int unbound(int fd) {
    struct sockaddr_in own;
    socklen_t len = sizeof own;
    if (getsockname(fd, (struct sockaddr *)&own, &len) != 0 || own.sin_family != AF_INET)
        return 0;
    return own.sin_port == 0 && own.sin_addr.s_addr == htonl(INADDR_ANY);
}

int connect(int fd, const struct sockaddr *addr, socklen_t len) {
    if (n_sources > 0 && addr != NULL && addr->sa_family == AF_INET && unbound(fd)) {
        struct sockaddr_in src = {.sin_family = AF_INET, .sin_port = 0};
        src.sin_addr = sources[atomic_fetch_add(&next_source, 1) % (unsigned)n_sources];
        int one = 1;
        setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
        if (bind(fd, (struct sockaddr *)&src, sizeof src) != 0)
            return -1; /* errno from bind */
    }
    return real_connect(fd, addr, len);
}
