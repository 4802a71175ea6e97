/*
 * IPv4 socket addresses from the command line: "ADDR" or "ADDR:PORT".
 */
#ifndef STEERLAB_ADDR_H
#define STEERLAB_ADDR_H

#include <netinet/in.h>
#include <stdint.h>

/* parse_addr_port: fills *sin (AF_INET); a missing port is default_port.
 * 0, or -1 on a malformed address or a port outside 1..65535. */
int parse_addr_port(const char *s, uint16_t default_port, struct sockaddr_in *sin);

#endif
