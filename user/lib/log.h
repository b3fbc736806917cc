/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SLOTSCOPE_LOG_H
#define SLOTSCOPE_LOG_H

#include <stdarg.h>

/* kernel typedefs have no place in user space; use the __u* ABI types or stdint */
#pragma GCC poison u8 u16 u32 u64 s8 s16 s32 s64

enum log_level { LOG_QUIET, LOG_ERR, LOG_WARN, LOG_INFO, LOG_DEBUG };

extern enum log_level log_level;

void pr_log(enum log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define pr_err(...)   pr_log(LOG_ERR, __VA_ARGS__)
#define pr_warn(...)  pr_log(LOG_WARN, __VA_ARGS__)
#define pr_info(...)  pr_log(LOG_INFO, __VA_ARGS__)
#define pr_debug(...) pr_log(LOG_DEBUG, __VA_ARGS__)

/* libbpf's messages, shown with -v */
enum libbpf_print_level;
int log_libbpf(enum libbpf_print_level level, const char *fmt, va_list args);

#endif
