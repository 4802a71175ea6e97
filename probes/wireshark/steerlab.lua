-- steerlab.lua: a Wireshark/tshark dissector for steerlab's request
-- protocol (lib/wire.h), what clients send to sites and sites answer.
--
-- One UDP datagram of 48 bytes, every integer big-endian:
--
--   off len  field                        filter field
--     0   4  magic "SLRQ"                 steerlab.magic
--     4   1  version (1)                  steerlab.version
--     5   1  type: 1 request, 2 reply     steerlab.type
--     6   2  flags (0; reserved)          steerlab.flags
--     8   4  client id                    steerlab.client
--    12   4  reserved (0)                 steerlab.reserved
--    16   8  sequence number              steerlab.seq
--    24   8  send time, ns since 1970     steerlab.sent_ns, steerlab.sent
--    32  16  site name, NUL-padded        steerlab.site
--
-- and one field derived from the client id, steerlab.scheme: "probe" for 0
-- (a prober's health probe), "anycast" for 1..99999 (a client's anycast
-- flow), "dns" from 100000 (a client's DNS-steered flow, 100000 + its id;
-- lab/build/lab.h, LAB_DNS_CLIENT_ID); a population's logical clients (ids from
-- 2^31, lib/wire.h WIRE_POP_ID) by bit 30, 1 for "dns".
--
-- Registered on UDP port 7000, the default request port, which Wireshark
-- otherwise decodes as AFS (RX); another port with the preference
-- steerlab.port (tshark -o steerlab.port:7100). Datagrams on other ports
-- are recognised by their magic and version (a heuristic). Over TCP (a
-- client with proto = tcp: docs/topology.md, "Connections") the same
-- messages come back to back on a connection: registered on TCP port 7000
-- too (and moved by the same preference), each segment's messages are
-- decoded one by one, and one split across segments once reassembled.
--
--   tshark -X lua_script:probes/wireshark/steerlab.lua -r runs/RUN/capture-a.pcap \
--          -T fields -e steerlab.client -e steerlab.seq -e steerlab.sent_ns
--
-- Installed by make install as PREFIX/share/steerlab/wireshark/steerlab.lua;
-- copy it to ~/.local/lib/wireshark/plugins/ for Wireshark to load it always.

local steerlab = Proto("steerlab", "steerlab request protocol")

local WIRE_LEN = 48
local DEFAULT_PORT = 7000
local DNS_CLIENT_BASE = 100000

local types = { [1] = "request", [2] = "reply" }

local f = steerlab.fields
f.magic = ProtoField.string("steerlab.magic", "Magic")
f.version = ProtoField.uint8("steerlab.version", "Version", base.DEC)
f.type = ProtoField.uint8("steerlab.type", "Type", base.DEC, types)
f.flags = ProtoField.uint16("steerlab.flags", "Flags", base.HEX)
f.client = ProtoField.uint32("steerlab.client", "Client id", base.DEC)
f.scheme = ProtoField.string("steerlab.scheme", "Scheme")
f.reserved = ProtoField.uint32("steerlab.reserved", "Reserved", base.HEX)
f.seq = ProtoField.uint64("steerlab.seq", "Sequence number", base.DEC)
f.sent_ns = ProtoField.uint64("steerlab.sent_ns", "Send time (ns)", base.DEC)
f.sent = ProtoField.absolute_time("steerlab.sent", "Send time", base.UTC)
f.site = ProtoField.string("steerlab.site", "Site")

steerlab.prefs.port = Pref.uint("UDP port", DEFAULT_PORT,
	"the request port (the topology's [lab] port; 7000 by default)")

-- a population's logical client (lib/wire.h, WIRE_POP_ID): bit 31 set,
-- its flow in bit 30 (1: dns), its node in bits 29-17, its index in 16-0
local POP_BIT = 0x80000000
local POP_DNS_BIT = 0x40000000

local function scheme_of(client)
	if client == 0 then
		return "probe"
	elseif client >= POP_BIT then
		if client - POP_BIT >= POP_DNS_BIT then
			return "dns"
		end
		return "anycast"
	elseif client < DNS_CLIENT_BASE then
		return "anycast"
	end
	return "dns"
end

-- is_steerlab: a whole message of this protocol and version, and a type it
-- knows (as lib/wire.c's wire_decode)
local function is_steerlab(tvb)
	if tvb:len() < WIRE_LEN or tvb(0, 4):string() ~= "SLRQ" or tvb(4, 1):uint() ~= 1 then
		return false
	end
	return types[tvb(5, 1):uint()] ~= nil
end

local function dissect_message(tvb, pinfo, tree)
	if not is_steerlab(tvb) then
		return 0
	end
	local type = tvb(5, 1):uint()
	local client = tvb(8, 4):uint()
	local seq = tvb(16, 8):uint64()
	local sent_ns = tvb(24, 8):uint64()
	local site = tvb(32, 16):stringz()
	local scheme = scheme_of(client)

	pinfo.cols.protocol = "steerlab"
	local info = string.format("%s client %u (%s) seq %s", types[type], client, scheme,
		tostring(seq))
	if site ~= "" then
		info = info .. " site " .. site
	end
	pinfo.cols.info = info

	local t = tree:add(steerlab, tvb(0, WIRE_LEN), "steerlab " .. info)
	t:add(f.magic, tvb(0, 4))
	t:add(f.version, tvb(4, 1))
	t:add(f.type, tvb(5, 1))
	t:add(f.flags, tvb(6, 2))
	t:add(f.client, tvb(8, 4))
	t:add(f.scheme, tvb(8, 4), scheme):set_generated()
	t:add(f.reserved, tvb(12, 4))
	t:add(f.seq, tvb(16, 8))
	t:add(f.sent_ns, tvb(24, 8))
	local secs = (sent_ns / 1000000000):tonumber()
	local nsecs = (sent_ns % 1000000000):tonumber()
	t:add(f.sent, tvb(24, 8), NSTime.new(secs, nsecs))
	t:add(f.site, tvb(32, 16), site)
	return WIRE_LEN
end
steerlab.dissector = dissect_message

-- over TCP: a stream of WIRE_LEN-byte messages
local steerlab_tcp = Proto("steerlab_tcp", "steerlab request protocol over TCP")

local function message_len(tvb, pinfo, offset)
	return WIRE_LEN
end

function steerlab_tcp.dissector(tvb, pinfo, tree)
	dissect_tcp_pdus(tvb, tree, WIRE_LEN, message_len, dissect_message, true)
	return tvb:len()
end

-- the port's previous dissector (AFS's for 7000) gets it back when the
-- preference moves steerlab to another port
local tables = {
	{ table = DissectorTable.get("udp.port"), proto = steerlab },
	{ table = DissectorTable.get("tcp.port"), proto = steerlab_tcp },
}
local registered_port = DEFAULT_PORT
for _, t in ipairs(tables) do
	t.previous = t.table:get_dissector(registered_port)
	t.table:add(registered_port, t.proto)
end

function steerlab.prefs_changed()
	local port = steerlab.prefs.port
	if port == registered_port then
		return
	end
	for _, t in ipairs(tables) do
		t.table:remove(registered_port, t.proto)
		if t.previous ~= nil then
			t.table:add(registered_port, t.previous)
		end
		t.previous = t.table:get_dissector(port)
		t.table:add(port, t.proto)
	end
	registered_port = port
end

local function heuristic(tvb, pinfo, tree)
	if not is_steerlab(tvb) then
		return false
	end
	dissect_message(tvb, pinfo, tree)
	return true
end
steerlab:register_heuristic("udp", heuristic)
