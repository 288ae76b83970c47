/*
 * http.c - the daemon's optional HTTP status page (daemon.status_listen):
 * GET /status answers the engine's JSON snapshot, GET /metrics the
 * Prometheus text, anything else 404 (405 for other methods). One thread
 * serves connections one at a time (HTTP/1.0, Connection: close), which is
 * plenty for a status page; poll() with a short timeout lets it stop.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cuzk/engine_log.h"
#include "cuzk/server.h"

struct cuzk_http {
    engine_t *engine;
    int fd;
    int stop;
    pthread_t thread;
};

/* Requests are small: the request line and a few headers. */
#define HTTP_MAX_REQUEST 8192
/* A client that sends nothing for this long is dropped. */
#define HTTP_READ_TIMEOUT_MS 2000

static void send_all(int fd, const char *data, size_t len)
{
    while (len) {
        ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
        if (n <= 0) return;
        data += n, len -= (size_t)n;
    }
}

static void respond(int fd, int code, const char *reason, const char *type, const char *body)
{
    char head[256];
    size_t len = body ? strlen(body) : 0;
    int n = snprintf(head, sizeof head,
                     "HTTP/1.0 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                     "Connection: close\r\n\r\n",
                     code, reason, type, len);
    send_all(fd, head, (size_t)n);
    if (body) send_all(fd, body, len);
}

/* Reads up to the end of the headers; returns the request length or -1. */
static ssize_t read_request(int fd, char *buf)
{
    size_t len = 0;
    while (len < HTTP_MAX_REQUEST - 1) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, HTTP_READ_TIMEOUT_MS) <= 0) return -1;
        ssize_t n = recv(fd, buf + len, HTTP_MAX_REQUEST - 1 - len, 0);
        if (n <= 0) return -1;
        len += (size_t)n;
        buf[len] = 0;
        if (strstr(buf, "\r\n\r\n") || strstr(buf, "\n\n")) return (ssize_t)len;
    }
    return -1;
}

static void serve(cuzk_http *h, int fd)
{
    char buf[HTTP_MAX_REQUEST], method[16], path[256];
    if (read_request(fd, buf) < 0 || sscanf(buf, "%15s %255s", method, path) != 2) {
        respond(fd, 400, "Bad Request", "text/plain", "bad request\n");
        return;
    }
    if (strcmp(method, "GET")) {
        respond(fd, 405, "Method Not Allowed", "text/plain", "only GET\n");
        return;
    }
    char *body = NULL;
    const char *type = "application/json";
    if (!strcmp(path, "/status"))
        body = engine_status_json(h->engine);
    else if (!strcmp(path, "/metrics")) {
        body = engine_metrics(h->engine);
        type = "text/plain; version=0.0.4";
    } else {
        respond(fd, 404, "Not Found", "text/plain", "GET /status or /metrics\n");
        return;
    }
    if (body)
        respond(fd, 200, "OK", type, body);
    else
        respond(fd, 500, "Internal Server Error", "text/plain", "out of memory\n");
    free(body);
}

static void *http_thread(void *arg)
{
    cuzk_http *h = arg;
    while (!__atomic_load_n(&h->stop, __ATOMIC_ACQUIRE)) {
        struct pollfd p = {h->fd, POLLIN, 0};
        if (poll(&p, 1, 200) <= 0) continue;
        int fd = accept(h->fd, NULL, NULL);
        if (fd < 0) continue;
        serve(h, fd);
        close(fd);
    }
    return NULL;
}

/* Binds host:port (IPv4 or IPv6). */
static int listen_on(const char *addr, cuzk_err *err)
{
    char host[256];
    const char *colon = strrchr(addr, ':');
    if (!colon || colon == addr || (size_t)(colon - addr) >= sizeof host)
        return -cuzk_errf(err, CUZK_EINVAL, "status_listen '%s': expected host:port", addr);
    memcpy(host, addr, (size_t)(colon - addr));
    host[colon - addr] = 0;
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res;
    if (getaddrinfo(host, colon + 1, &hints, &res))
        return -cuzk_errf(err, CUZK_EINVAL, "status_listen '%s': cannot resolve", addr);
    int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 16)) {
        int e = errno;
        if (fd >= 0) close(fd);
        freeaddrinfo(res);
        return -cuzk_errf(err, CUZK_EIO, "status_listen %s: %s", addr, strerror(e));
    }
    freeaddrinfo(res);
    return fd;
}

int cuzk_http_start(cuzk_http **out, engine_t *e, const char *addr, cuzk_err *err)
{
    int fd = listen_on(addr, err);
    if (fd < 0) return -fd;
    cuzk_http *h = calloc(1, sizeof *h);
    if (!h) {
        close(fd);
        return cuzk_errf(err, CUZK_ENOMEM, "http: out of memory");
    }
    h->engine = e;
    h->fd = fd;
    if (pthread_create(&h->thread, NULL, http_thread, h)) {
        close(fd);
        free(h);
        return cuzk_errf(err, CUZK_ENOMEM, "http: cannot start its thread");
    }
    engine_log(LOG_INFO, "http: status on http://%s/status", addr);
    *out = h;
    return CUZK_OK;
}

void cuzk_http_stop(cuzk_http *h)
{
    if (!h) return;
    __atomic_store_n(&h->stop, 1, __ATOMIC_RELEASE);
    pthread_join(h->thread, NULL);
    close(h->fd);
    free(h);
}
