/*
 * wafka's broker-side test peer: librdkafka's mock Kafka cluster
 * (rdkafka_mock.h), driven by line commands on stdin.
 *
 *   mock-cluster [BROKERS]
 *
 * The first stdout line is the bootstrap servers list (brokers 1..N in
 * order). Then each stdin line is one command; each gets exactly one reply
 * line: "ok", "ok <value>" or "error <text>". End of stdin (the parent died)
 * or "quit" destroys the cluster and exits. Arguments are separated by
 * blanks, so names with blanks cannot be passed.
 *
 * Built twice by build.mjs: against Debian's librdkafka 2.0.2 ("legacy")
 * and the 2.15 of @confluentinc/kafka-javascript ("modern"). Commands the
 * legacy header lacks answer "error unsupported". See README.md beside it.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

/* The functions behind the "modern only" commands appeared somewhere
 * between 2.0.2 and 2.15; only those two builds are compiled, so one bound
 * is enough. */
#define MOCK_MODERN (RD_KAFKA_VERSION >= 0x020f0000)

#define MAX_ARGS 512

static rd_kafka_mock_cluster_t *mcluster;
static int broker_cnt; /* bounds the replication factor */

/* The reply to the current command; handlers fill it on success when they
 * have a value to return, or return an error text. */
static char reply[256];

/* ---- argument parsing ---------------------------------------------------- */

static int parse_long(const char *s, long min, long max, long *out) {
        char *end;
        long v;
        errno = 0;
        v     = strtol(s, &end, 10);
        if (errno || end == s || *end || v < min || v > max)
                return -1;
        *out = v;
        return 0;
}

#define ARG_INT(var, idx, min, max)                                            \
        long var;                                                              \
        if (parse_long(argv[idx], min, max, &var))                             \
                return bad_number(argv[idx]);

static const char *bad_number(const char *s) {
        snprintf(reply, sizeof(reply), "not a number in range: %s", s);
        return reply;
}

/* Turns a librdkafka result into the reply: NULL (ok) or its error name. */
static const char *result(rd_kafka_resp_err_t err) {
        if (!err)
                return NULL;
        snprintf(reply, sizeof(reply), "%s (%d): %s", rd_kafka_err2name(err),
                 (int)err, rd_kafka_err2str(err));
        return reply;
}

/* Error codes are Kafka's (e.g. 6 NOT_LEADER_OR_FOLLOWER) or librdkafka's
 * negative ones; -195 (_TRANSPORT) makes the broker drop the connection. */
static int parse_errors(int argc, char **argv, int from,
                        rd_kafka_resp_err_t *errs) {
        for (int i = from; i < argc; i++) {
                long v;
                if (parse_long(argv[i], SHRT_MIN, SHRT_MAX, &v))
                        return -1;
                errs[i - from] = (rd_kafka_resp_err_t)v;
        }
        return 0;
}

/* ---- commands ------------------------------------------------------------ */

/* topic NAME PARTITIONS REPLICATION_FACTOR */
static const char *cmd_topic(int argc, char **argv) {
        ARG_INT(partitions, 2, 1, 100000);
        ARG_INT(rf, 3, 1, INT_MAX);
        if (rf > broker_cnt) {
                snprintf(reply, sizeof(reply),
                         "replication factor %ld > %d brokers", rf, broker_cnt);
                return reply;
        }
        return result(rd_kafka_mock_topic_create(mcluster, argv[1],
                                                 (int)partitions, (int)rf));
}

/* leader TOPIC PARTITION BROKER (-1: no leader). Creates the topic if it
 * does not exist (the mock's behaviour). */
static const char *cmd_leader(int argc, char **argv) {
        ARG_INT(partition, 2, 0, INT32_MAX);
        ARG_INT(broker, 3, -1, INT32_MAX);
        return result(rd_kafka_mock_partition_set_leader(
            mcluster, argv[1], (int32_t)partition, (int32_t)broker));
}

/* follower TOPIC PARTITION BROKER: the preferred read replica (KIP-392). */
static const char *cmd_follower(int argc, char **argv) {
        ARG_INT(partition, 2, 0, INT32_MAX);
        ARG_INT(broker, 3, -1, INT32_MAX);
        return result(rd_kafka_mock_partition_set_follower(
            mcluster, argv[1], (int32_t)partition, (int32_t)broker));
}

/* down BROKER / up BROKER (-1: all). Closes its connections and refuses
 * new ones; partition leadership does not move. */
static const char *cmd_down(int argc, char **argv) {
        ARG_INT(broker, 1, -1, INT32_MAX);
        return result(rd_kafka_mock_broker_set_down(mcluster, (int32_t)broker));
}

static const char *cmd_up(int argc, char **argv) {
        ARG_INT(broker, 1, -1, INT32_MAX);
        return result(rd_kafka_mock_broker_set_up(mcluster, (int32_t)broker));
}

/* rtt BROKER MS (-1: all): added delay before each response. */
static const char *cmd_rtt(int argc, char **argv) {
        ARG_INT(broker, 1, -1, INT32_MAX);
        ARG_INT(ms, 2, 0, INT_MAX);
        return result(
            rd_kafka_mock_broker_set_rtt(mcluster, (int32_t)broker, (int)ms));
}

/* rack BROKER RACK */
static const char *cmd_rack(int argc, char **argv) {
        ARG_INT(broker, 1, -1, INT32_MAX);
        return result(
            rd_kafka_mock_broker_set_rack(mcluster, (int32_t)broker, argv[2]));
}

/* errors APIKEY CODE...: the next requests of that type, on any broker,
 * fail with these codes in order (one code per request). */
static const char *cmd_errors(int argc, char **argv) {
        rd_kafka_resp_err_t errs[MAX_ARGS];
        ARG_INT(api_key, 1, 0, SHRT_MAX);
        if (parse_errors(argc, argv, 2, errs))
                return "codes must be 16-bit integers";
        rd_kafka_mock_push_request_errors_array(mcluster, (int16_t)api_key,
                                                (size_t)(argc - 2), errs);
        return NULL;
}

/* broker-errors BROKER APIKEY CODE:RTT_MS...: like errors, on one broker,
 * each with a delay before the response. Broker errors take precedence
 * over cluster errors. */
static const char *cmd_broker_errors(int argc, char **argv) {
        long codes[MAX_ARGS], rtts[MAX_ARGS];
        ARG_INT(broker, 1, 0, INT32_MAX);
        ARG_INT(api_key, 2, 0, SHRT_MAX);
        /* All parsed before any is pushed: a bad entry changes nothing. */
        for (int i = 3; i < argc; i++) {
                char *colon = strchr(argv[i], ':');
                rtts[i] = 0;
                if (colon)
                        *colon = '\0';
                if (parse_long(argv[i], SHRT_MIN, SHRT_MAX, &codes[i]) ||
                    (colon && parse_long(colon + 1, 0, INT_MAX, &rtts[i])))
                        return "each entry must be CODE or CODE:RTT_MS";
        }
        for (int i = 3; i < argc; i++) {
                /* The function is variadic: push one tuple at a time; the
                 * stack keeps push order. */
                rd_kafka_resp_err_t err =
                    rd_kafka_mock_broker_push_request_error_rtts(
                        mcluster, (int32_t)broker, (int16_t)api_key, 1,
                        (rd_kafka_resp_err_t)codes[i], (int)rtts[i]);
                if (err)
                        return result(err);
        }
        return NULL;
}

/* error-count BROKER APIKEY: "ok N", errors left on that broker's stack. */
static const char *cmd_error_count(int argc, char **argv) {
        size_t cnt = 0;
        rd_kafka_resp_err_t err;
        ARG_INT(broker, 1, 0, INT32_MAX);
        ARG_INT(api_key, 2, 0, SHRT_MAX);
        err = rd_kafka_mock_broker_error_stack_cnt(mcluster, (int32_t)broker,
                                                   (int16_t)api_key, &cnt);
        if (err)
                return result(err);
        snprintf(reply, sizeof(reply), "ok %zu", cnt);
        return NULL;
}

/* clear-errors APIKEY: drops the cluster-wide stack for that API. */
static const char *cmd_clear_errors(int argc, char **argv) {
        ARG_INT(api_key, 1, 0, SHRT_MAX);
        rd_kafka_mock_clear_request_errors(mcluster, (int16_t)api_key);
        return NULL;
}

/* topic-error TOPIC CODE: returned for the topic in Metadata (and
 * AddPartitionsToTxn) responses; 0 clears it. */
static const char *cmd_topic_error(int argc, char **argv) {
        ARG_INT(code, 2, SHRT_MIN, SHRT_MAX);
        rd_kafka_mock_topic_set_error(mcluster, argv[1],
                                      (rd_kafka_resp_err_t)code);
        return NULL;
}

/* coordinator group|transaction KEY BROKER */
static const char *cmd_coordinator(int argc, char **argv) {
        ARG_INT(broker, 3, -1, INT32_MAX);
        if (strcmp(argv[1], "group") && strcmp(argv[1], "transaction"))
                return "coordinator type must be group or transaction";
        return result(rd_kafka_mock_coordinator_set(mcluster, argv[1], argv[2],
                                                    (int32_t)broker));
}

/* apiversion APIKEY MIN MAX: narrows what ApiVersions advertises (-1 -1
 * removes the API). MAX must not exceed what the mock implements. */
static const char *cmd_apiversion(int argc, char **argv) {
        ARG_INT(api_key, 1, 0, SHRT_MAX);
        ARG_INT(min, 2, -1, SHRT_MAX);
        ARG_INT(max, 3, -1, SHRT_MAX);
        return result(rd_kafka_mock_set_apiversion(
            mcluster, (int16_t)api_key, (int16_t)min, (int16_t)max));
}

#if MOCK_MODERN
/* delete-topic NAME */
static const char *cmd_delete_topic(int argc, char **argv) {
        return result(rd_kafka_mock_topic_delete(mcluster, argv[1]));
}

/* delete-records TOPIC PARTITION OFFSET: advances the log start offset. */
static const char *cmd_delete_records(int argc, char **argv) {
        ARG_INT(partition, 2, 0, INT32_MAX);
        ARG_INT(offset, 3, 0, LONG_MAX);
        return result(rd_kafka_mock_partition_delete_records(
            mcluster, argv[1], (int32_t)partition, (int64_t)offset));
}

/* partition-errors TOPIC PARTITION APIKEY CODE...: partition-level error
 * codes in the next responses of that type naming the partition. */
static const char *cmd_partition_errors(int argc, char **argv) {
        rd_kafka_resp_err_t errs[MAX_ARGS];
        ARG_INT(partition, 2, 0, INT32_MAX);
        ARG_INT(api_key, 3, 0, SHRT_MAX);
        if (parse_errors(argc, argv, 4, errs))
                return "codes must be 16-bit integers";
        for (int i = 0; i < argc - 4; i++) {
                rd_kafka_resp_err_t err =
                    rd_kafka_mock_partition_push_request_errors(
                        mcluster, argv[1], (int32_t)partition,
                        (int16_t)api_key, 1, errs[i]);
                if (err)
                        return result(err);
        }
        return NULL;
}

/* decommission BROKER: removes it; its partitions move to the others. */
static const char *cmd_decommission(int argc, char **argv) {
        rd_kafka_resp_err_t err;
        ARG_INT(broker, 1, 0, INT32_MAX);
        err = rd_kafka_mock_broker_decommission(mcluster, (int32_t)broker);
        if (!err)
                broker_cnt--;
        return result(err);
}

/* add-broker ID: a new broker; partitions are spread onto it. */
static const char *cmd_add_broker(int argc, char **argv) {
        rd_kafka_resp_err_t err;
        ARG_INT(broker, 1, 0, INT32_MAX);
        err = rd_kafka_mock_broker_add(mcluster, (int32_t)broker);
        if (!err)
                broker_cnt++;
        return result(err);
}

/* hide-broker BROKER: gone from Metadata, connections kept. */
static const char *cmd_hide_broker(int argc, char **argv) {
        ARG_INT(broker, 1, 0, INT32_MAX);
        return result(rd_kafka_mock_broker_remove_from_metadata(
            mcluster, (int32_t)broker));
}

/* controller ID (-1: none) as reported in Metadata. */
static const char *cmd_controller(int argc, char **argv) {
        ARG_INT(broker, 1, -1, INT32_MAX);
        rd_kafka_mock_set_controller_id(mcluster, (int32_t)broker);
        return NULL;
}

/* rebalance-delay MS: group.initial.rebalance.delay.ms (default 3000). */
static const char *cmd_rebalance_delay(int argc, char **argv) {
        ARG_INT(ms, 1, 0, INT32_MAX);
        rd_kafka_mock_group_initial_rebalance_delay_ms(mcluster, (int32_t)ms);
        return NULL;
}

/* group-consumer-session-timeout MS: KIP-848 groups fence a member this
 * long after its last heartbeat (default 30000; checked once a second).
 * A group takes it up at its members' next heartbeat. */
static const char *cmd_group_consumer_session_timeout(int argc, char **argv) {
        ARG_INT(ms, 1, 1, INT_MAX);
        rd_kafka_mock_set_group_consumer_session_timeout_ms(mcluster, (int)ms);
        return NULL;
}

/* group-consumer-heartbeat-interval MS: the HeartbeatIntervalMs that
 * ConsumerGroupHeartbeat responses carry (default 3000); taken up likewise. */
static const char *cmd_group_consumer_heartbeat_interval(int argc,
                                                         char **argv) {
        ARG_INT(ms, 1, 1, INT_MAX);
        rd_kafka_mock_set_group_consumer_heartbeat_interval_ms(mcluster,
                                                               (int)ms);
        return NULL;
}

/* One MEMBER=TOPIC:PARTITION,... entry of target-assignment: splits off
 * the member id (at the last '=': topic names have none) and fills the list.
 * Returns NULL or why the entry is malformed. */
static const char *parse_member_assignment(char *entry, char **member_id,
                                           rd_kafka_topic_partition_list_t *parts) {
        char *eq = strrchr(entry, '='), *save, *item;
        if (!eq || eq == entry)
                return "each entry must be MEMBER=TOPIC:PARTITION,...";
        *eq        = '\0';
        *member_id = entry;
        for (item = strtok_r(eq + 1, ",", &save); item;
             item = strtok_r(NULL, ",", &save)) {
                char *colon = strrchr(item, ':');
                long partition;
                if (!colon || colon == item ||
                    parse_long(colon + 1, 0, INT32_MAX, &partition))
                        return "partitions must be TOPIC:PARTITION";
                *colon = '\0';
                rd_kafka_topic_partition_list_add(parts, item,
                                                  (int32_t)partition);
        }
        return NULL;
}

/* target-assignment GROUP [MEMBER=TOPIC:PARTITION,...]...: the KIP-848
 * target assignment of a group's members, replacing the mock's own (a
 * plain range over each topic's subscribers) until a call without entries
 * brings that back. Silently does nothing for a group no member has
 * heartbeated to yet, and skips member ids not in the group. */
static const char *cmd_target_assignment(int argc, char **argv) {
        int member_cnt = argc - 2;
        char *member_ids[MAX_ARGS];
        rd_kafka_topic_partition_list_t *parts[MAX_ARGS];
        rd_kafka_mock_cgrp_consumer_target_assignment_t *target;
        const char *err = NULL;

        if (member_cnt == 0) {
                rd_kafka_mock_cgrp_consumer_target_assignment(mcluster, argv[1],
                                                              NULL);
                return NULL;
        }
        for (int i = 0; i < member_cnt; i++)
                parts[i] = rd_kafka_topic_partition_list_new(4);
        for (int i = 0; i < member_cnt && !err; i++)
                err = parse_member_assignment(argv[i + 2], &member_ids[i],
                                              parts[i]);
        if (!err) {
                target = rd_kafka_mock_cgrp_consumer_target_assignment_new(
                    member_ids, member_cnt, parts);
                rd_kafka_mock_cgrp_consumer_target_assignment(mcluster, argv[1],
                                                              target);
                rd_kafka_mock_cgrp_consumer_target_assignment_destroy(target);
        }
        for (int i = 0; i < member_cnt; i++)
                rd_kafka_topic_partition_list_destroy(parts[i]);
        return err;
}
#endif

struct command {
        const char *name;
        int min_args, max_args; /* after the name */
        const char *(*run)(int argc, char **argv);
        const char *usage;
};

static const struct command commands[] = {
    {"topic", 3, 3, cmd_topic, "topic NAME PARTITIONS RF"},
    {"leader", 3, 3, cmd_leader, "leader TOPIC PARTITION BROKER"},
    {"follower", 3, 3, cmd_follower, "follower TOPIC PARTITION BROKER"},
    {"down", 1, 1, cmd_down, "down BROKER"},
    {"up", 1, 1, cmd_up, "up BROKER"},
    {"rtt", 2, 2, cmd_rtt, "rtt BROKER MS"},
    {"rack", 2, 2, cmd_rack, "rack BROKER RACK"},
    {"errors", 2, MAX_ARGS - 2, cmd_errors, "errors APIKEY CODE..."},
    {"broker-errors", 3, MAX_ARGS - 3, cmd_broker_errors,
     "broker-errors BROKER APIKEY CODE[:RTT_MS]..."},
    {"error-count", 2, 2, cmd_error_count, "error-count BROKER APIKEY"},
    {"clear-errors", 1, 1, cmd_clear_errors, "clear-errors APIKEY"},
    {"topic-error", 2, 2, cmd_topic_error, "topic-error TOPIC CODE"},
    {"coordinator", 3, 3, cmd_coordinator,
     "coordinator group|transaction KEY BROKER"},
    {"apiversion", 3, 3, cmd_apiversion, "apiversion APIKEY MIN MAX"},
#if MOCK_MODERN
    {"delete-topic", 1, 1, cmd_delete_topic, "delete-topic NAME"},
    {"delete-records", 3, 3, cmd_delete_records,
     "delete-records TOPIC PARTITION OFFSET"},
    {"partition-errors", 4, MAX_ARGS - 4, cmd_partition_errors,
     "partition-errors TOPIC PARTITION APIKEY CODE..."},
    {"decommission", 1, 1, cmd_decommission, "decommission BROKER"},
    {"add-broker", 1, 1, cmd_add_broker, "add-broker ID"},
    {"hide-broker", 1, 1, cmd_hide_broker, "hide-broker BROKER"},
    {"controller", 1, 1, cmd_controller, "controller ID"},
    {"rebalance-delay", 1, 1, cmd_rebalance_delay, "rebalance-delay MS"},
    {"group-consumer-session-timeout", 1, 1, cmd_group_consumer_session_timeout,
     "group-consumer-session-timeout MS"},
    {"group-consumer-heartbeat-interval", 1, 1,
     cmd_group_consumer_heartbeat_interval,
     "group-consumer-heartbeat-interval MS"},
    {"target-assignment", 1, MAX_ARGS - 2, cmd_target_assignment,
     "target-assignment GROUP [MEMBER=TOPIC:PARTITION,...]..."},
#endif
};

/* Commands known to the protocol but missing from this build's librdkafka. */
static const char *const modern_only[] = {
    "delete-topic",
    "delete-records",
    "partition-errors",
    "decommission",
    "add-broker",
    "hide-broker",
    "controller",
    "rebalance-delay",
    "group-consumer-session-timeout",
    "group-consumer-heartbeat-interval",
    "target-assignment"};

static void run_line(char *line) {
        char *argv[MAX_ARGS];
        int argc = 0;
        char *save;
        const char *err = NULL;
        const struct command *cmd = NULL;

        for (char *tok = strtok_r(line, " \t\r\n", &save);
             tok && argc < MAX_ARGS; tok = strtok_r(NULL, " \t\r\n", &save))
                argv[argc++] = tok;
        if (argc == 0) {
                puts("error empty command");
                return;
        }

        for (size_t i = 0; i < sizeof(commands) / sizeof(*commands); i++)
                if (!strcmp(commands[i].name, argv[0]))
                        cmd = &commands[i];

        reply[0] = '\0';
        if (!cmd) {
                const char *what = "unknown command";
                for (size_t i = 0;
                     i < sizeof(modern_only) / sizeof(*modern_only); i++)
                        if (!strcmp(modern_only[i], argv[0]))
                                what = "unsupported";
                printf("error %s: %s\n", what, argv[0]);
        } else if (argc - 1 < cmd->min_args || argc - 1 > cmd->max_args) {
                printf("error usage: %s\n", cmd->usage);
        } else if ((err = cmd->run(argc, argv))) {
                printf("error %s\n", err);
        } else {
                puts(reply[0] ? reply : "ok");
        }
}

#if MOCK_MODERN
/* 2.15's mock advertises JoinGroup v6, SyncGroup v4, Heartbeat v4 and
 * LeaveGroup v3+ but parses their arrays the pre-flexible way (an int32
 * count) and reads no LeaveGroup member list: it drops the connection on
 * what it misreads. Every client of the rig gets the versions librdkafka's
 * own client sends, which it parses right. */
static void advertise_what_it_parses(void) {
        static const int caps[][2] = {
            {11 /* JoinGroup */, 5},
            {14 /* SyncGroup */, 3},
            {12 /* Heartbeat */, 3},
            {13 /* LeaveGroup */, 2},
        };
        size_t i;
        for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
                rd_kafka_mock_set_apiversion(mcluster, caps[i][0], 0,
                                             caps[i][1]);
}
#endif

int main(int argc, char **argv) {
        char errstr[512];
        char line[8192];
        long n = 3;
        int quit = 0;
        rd_kafka_conf_t *conf;
        rd_kafka_t *rk;

        if (argc > 1 && parse_long(argv[1], 1, 1000, &n)) {
                fprintf(stderr, "usage: %s [BROKERS]\n", argv[0]);
                return 2;
        }
        broker_cnt = (int)n;
        /* A parent that stops reading must not kill us mid-reply. */
        signal(SIGPIPE, SIG_IGN);

        /* The handle only hosts the mock's bookkeeping; it never connects. */
        conf = rd_kafka_conf_new();
        if (rd_kafka_conf_set(conf, "log_level", "4", errstr,
                              sizeof(errstr)) != RD_KAFKA_CONF_OK) {
                fprintf(stderr, "%s\n", errstr);
                return 1;
        }
        rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
        if (!rk) {
                fprintf(stderr, "rd_kafka_new: %s\n", errstr);
                return 1;
        }
        mcluster = rd_kafka_mock_cluster_new(rk, broker_cnt);
        if (!mcluster) {
                fprintf(stderr, "rd_kafka_mock_cluster_new failed\n");
                return 1;
        }

#if MOCK_MODERN
        advertise_what_it_parses();
#endif

        setvbuf(stdout, NULL, _IOLBF, 0);
        printf("%s\n", rd_kafka_mock_cluster_bootstraps(mcluster));
        fprintf(stderr, "mock-cluster: librdkafka %s, %d brokers\n",
                rd_kafka_version_str(), broker_cnt);

        while (fgets(line, sizeof(line), stdin)) {
                if (!strchr(line, '\n') && !feof(stdin)) {
                        int c;
                        while ((c = getchar()) != EOF && c != '\n')
                                ;
                        puts("error line too long");
                        continue;
                }
                if (!strcmp(line, "quit\n") || !strcmp(line, "quit")) {
                        quit = 1;
                        break;
                }
                run_line(line);
        }

        rd_kafka_mock_cluster_destroy(mcluster);
        rd_kafka_destroy(rk);
        if (quit)
                puts("ok");
        return 0;
}
