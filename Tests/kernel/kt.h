/* kt's commands that live outside kt.c (kt_filter.c: filter mode). */
#ifndef KT_H
#define KT_H
int cmd_send(const char *path, const char *command);
int cmd_session(const char *path);
int cmd_mtcheck(const char *path);
int cmd_mtwatch(const char *node);
int cmd_litouch(const char *path);
int cmd_fwd_latency(long frames, int major);
#endif
