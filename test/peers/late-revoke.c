/*
 * A librdkafka consumer whose revoke callback runs after close() has ended
 * its group (test/kafka/late-revoke.test.ts runs it on Kafka 4.4 and on
 * wafka). Two consumers A and B share a topic, and read from it only once
 * both hold partitions (so neither finds its partitions already read by the
 * other, whatever the order they join in); B closes, so A's next
 * heartbeat is answered REBALANCE_IN_PROGRESS and librdkafka queues a revoke
 * for the application. A is not polled: it unsubscribes and closes, and its
 * revoke callback, slowed as a busy application thread is, runs only then.
 * By that time librdkafka has left the group, committed the revoked
 * partitions without a member id (refused: UNKNOWN_MEMBER_ID) and ended
 * the group, so rd_kafka_rebalance_protocol() returns NULL there. This is
 * what crashed librdkafka's own 0018_cgrp_term, whose helper passes that
 * NULL to strcmp (see HARNESS_PATCH in librdkafka-suite.mjs).
 *
 * usage: late-revoke BOOTSTRAP TOPIC GROUP
 * stdout, one fact a line: "commit <partition> <error name>",
 * "revoke-protocol <protocol|NULL>", "closed".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "librdkafka/rdkafka.h"

static void pause_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static void fail(const char *what, const char *why) {
  fprintf(stderr, "late-revoke: %s: %s\n", what, why);
  exit(2);
}

/* One consumer's state, its opaque. */
struct member {
  int closing; /* close() has begun: the revoke callback is the late one */
  int released; /* both consumers hold partitions: assignments are read from */
};

static void on_rebalance(rd_kafka_t *rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t *parts, void *opaque) {
  struct member *m = opaque;
  if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    rd_kafka_assign(rk, parts);
    /* Held until both have partitions: a consumer that joins first must not
     * read the partitions the other is about to get, or the other has
     * nothing left to read (and so nothing to commit). */
    if (!m->released) rd_kafka_pause_partitions(rk, parts);
    return;
  }
  if (m->closing) {
    pause_ms(500); /* the application thread is busy: the group ends first */
    const char *protocol = rd_kafka_rebalance_protocol(rk);
    printf("revoke-protocol %s\n", protocol ? protocol : "NULL");
    fflush(stdout);
  }
  rd_kafka_assign(rk, NULL);
}

/* The consumer's assignment, paused or not, is not empty. */
static int holds_partitions(rd_kafka_t *rk) {
  rd_kafka_topic_partition_list_t *assignment = NULL;
  if (rd_kafka_assignment(rk, &assignment) != RD_KAFKA_RESP_ERR_NO_ERROR) return 0;
  int held = assignment->cnt > 0;
  rd_kafka_topic_partition_list_destroy(assignment);
  return held;
}

static void release(rd_kafka_t *rk, struct member *m) {
  rd_kafka_topic_partition_list_t *assignment = NULL;
  m->released = 1;
  if (rd_kafka_assignment(rk, &assignment) != RD_KAFKA_RESP_ERR_NO_ERROR) fail("assignment", "not known");
  rd_kafka_resume_partitions(rk, assignment);
  rd_kafka_topic_partition_list_destroy(assignment);
}

static void on_commit(rd_kafka_t *rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t *offsets, void *opaque) {
  for (int i = 0; offsets && i < offsets->cnt; i++)
    if (offsets->elems[i].offset >= 0)
      printf("commit %d %s\n", offsets->elems[i].partition, rd_kafka_err2name(offsets->elems[i].err));
  fflush(stdout);
}

static rd_kafka_t *consumer(const char *bootstrap, const char *group, const char *name, struct member *m) {
  char err[512];
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  const char *settings[][2] = {
      {"bootstrap.servers", bootstrap}, {"group.id", group}, {"client.id", name},
      {"auto.offset.reset", "earliest"}, {"session.timeout.ms", "6000"}, {"heartbeat.interval.ms", "300"},
      {"partition.assignment.strategy", "range"},
      /* Offsets are committed only when partitions are revoked: a periodic commit
       * between A's last read and its late revoke would leave that revoke nothing to commit. */
      {"auto.commit.interval.ms", "600000"}, {"broker.address.family", "v4"}, {"group.protocol", "classic"},
  };
  for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++)
    if (rd_kafka_conf_set(conf, settings[i][0], settings[i][1], err, sizeof err) != RD_KAFKA_CONF_OK) fail(settings[i][0], err);
  rd_kafka_conf_set_rebalance_cb(conf, on_rebalance);
  rd_kafka_conf_set_offset_commit_cb(conf, on_commit);
  rd_kafka_conf_set_opaque(conf, m);
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  if (!rk) fail("rd_kafka_new", err);
  rd_kafka_poll_set_consumer(rk);
  return rk;
}

int main(int argc, char **argv) {
  if (argc != 4) fail("usage", "late-revoke BOOTSTRAP TOPIC GROUP");
  const char *bootstrap = argv[1], *topic = argv[2], *group = argv[3];
  struct member ma = {0, 0}, mb = {0, 0};
  rd_kafka_t *a = consumer(bootstrap, group, "A", &ma), *b = consumer(bootstrap, group, "B", &mb);
  rd_kafka_topic_partition_list_t *subscription = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(subscription, topic, RD_KAFKA_PARTITION_UA);
  if (rd_kafka_subscribe(a, subscription) || rd_kafka_subscribe(b, subscription)) fail("subscribe", topic);
  rd_kafka_topic_partition_list_destroy(subscription);
  /* Polled (which serves the rebalance) until both hold partitions, and only then read. */
  for (int i = 0; i < 600 && !(holds_partitions(a) && holds_partitions(b)); i++) {
    rd_kafka_message_t *m = rd_kafka_consumer_poll(a, 50);
    if (m) rd_kafka_message_destroy(m);
    m = rd_kafka_consumer_poll(b, 50);
    if (m) rd_kafka_message_destroy(m);
  }
  if (!holds_partitions(a) || !holds_partitions(b)) fail("join", "both consumers did not get partitions within 60 s");
  release(a, &ma);
  release(b, &mb);
  /* Both have read from their partitions: each has offsets to commit when it loses them. */
  int read_a = 0, read_b = 0;
  for (int i = 0; i < 600 && (read_a < 5 || read_b < 5); i++) {
    rd_kafka_message_t *m = rd_kafka_consumer_poll(a, 50);
    if (m) read_a += !m->err, rd_kafka_message_destroy(m);
    m = rd_kafka_consumer_poll(b, 50);
    if (m) read_b += !m->err, rd_kafka_message_destroy(m);
  }
  if (read_a < 5 || read_b < 5) fail("consume", "both consumers did not get records within 60 s");
  rd_kafka_consumer_close(b);
  rd_kafka_destroy(b);
  /* A is not polled while its heartbeats learn of the rebalance and queue the revoke. */
  pause_ms(2000);
  ma.closing = 1;
  rd_kafka_unsubscribe(a);
  rd_kafka_consumer_close(a);
  rd_kafka_destroy(a);
  printf("closed\n");
  return 0;
}
