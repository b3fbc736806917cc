// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <string.h>
#include <cmocka.h>
#include "route.h"

#ifndef FIXTURES
#define FIXTURES "tests/fixtures"
#endif

static void test_route(void **state)
{
	char ifn[32], root[600];

	(void)state;
	assert_int_equal(route_netdev(FIXTURES, "127.0.0.11", ifn, sizeof(ifn)), 0);
	assert_string_equal(ifn, "lo");
	assert_int_equal(route_netdev(FIXTURES, "10.0.2.101", ifn, sizeof(ifn)), 0);
	assert_string_equal(ifn, "eth0");
	assert_int_equal(route_netdev(FIXTURES, "192.168.50.7", ifn, sizeof(ifn)), 0);	/* /24 beats /16 */
	assert_string_equal(ifn, "ens1f0");
	assert_int_equal(route_netdev(FIXTURES, "192.168.9.7", ifn, sizeof(ifn)), 0);
	assert_string_equal(ifn, "ens1f0");
	assert_int_equal(route_netdev(FIXTURES, "8.8.8.8", ifn, sizeof(ifn)), 0);		/* default */
	assert_string_equal(ifn, "eth0");
	/* IPv6: longest prefix over every table; a scope suffix names the interface */
	assert_int_equal(route_netdev(FIXTURES, "fd00:0:0:1::5", ifn, sizeof(ifn)), 0);
	assert_string_equal(ifn, "ens1f0");
	assert_int_equal(route_netdev(FIXTURES, "fd00:0:0:1::7", ifn, sizeof(ifn)), 0);	/* /128 local */
	assert_string_equal(ifn, "lo");
	assert_int_equal(route_netdev(FIXTURES, "fd00::9", ifn, sizeof(ifn)), 0);
	assert_string_equal(ifn, "eth0");
	assert_int_equal(route_netdev(FIXTURES, "fd00:0:0:2::9", ifn, sizeof(ifn)), 0);	/* down: default */
	assert_string_equal(ifn, "eth0");
	assert_int_equal(route_netdev(FIXTURES, "::1", ifn, sizeof(ifn)), 0);
	assert_string_equal(ifn, "lo");
	assert_int_equal(route_netdev(FIXTURES, "fe80::1%ens1f0", ifn, sizeof(ifn)), 0);
	assert_string_equal(ifn, "ens1f0");
	assert_int_equal(route_netdev(FIXTURES, "not-an-address", ifn, sizeof(ifn)), -97);
	assert_int_equal(route_netdev(FIXTURES "/nonexistent", "10.0.2.1", ifn, sizeof(ifn)), -2);
	/* a root too long for the path is not cut into some other file's name */
	memset(root, 'a', sizeof(root) - 1);
	root[sizeof(root) - 1] = 0;
	assert_int_equal(route_netdev(root, "10.0.2.1", ifn, sizeof(ifn)), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_route),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
