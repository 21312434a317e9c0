/* The subset of the HBase 2.x Thrift2 gateway interface (THBaseService) that
 * actionbase-c's hbase store backend calls, written for this project: field
 * ids, types and method names match the HBase 2.5/2.6 gateway, so the wire
 * format is the gateway's. Fields and methods we never use are left out (an
 * unknown field in a reply is skipped). The build generates the c_glib client
 * from this file (symbols prefixed Hb / hb_, see namespace below). */
namespace c_glib Hb

/* ---- enums ---- */

enum TDeleteType {
  DELETE_COLUMN = 0,         /* one version of a column */
  DELETE_COLUMNS = 1,        /* every version of a column */
  DELETE_FAMILY = 2,
  DELETE_FAMILY_VERSION = 3
}

enum TDurability {
  USE_DEFAULT = 0,
  SKIP_WAL = 1,
  ASYNC_WAL = 2,
  SYNC_WAL = 3,
  FSYNC_WAL = 4
}

/* Named TCompareOperator on HBase 3.x; same values. */
enum TCompareOp {
  LESS = 0,
  LESS_OR_EQUAL = 1,
  EQUAL = 2,
  NOT_EQUAL = 3,
  GREATER_OR_EQUAL = 4,
  GREATER = 5,
  NO_OP = 6
}

enum TBloomFilterType {
  NONE = 0,
  ROW = 1,
  ROWCOL = 2,
  ROWPREFIX_FIXED_LENGTH = 3
}

enum TCompressionAlgorithm {
  LZO = 0,
  GZ = 1,
  NONE = 2,
  SNAPPY = 3,
  LZ4 = 4,
  BZIP2 = 5,
  ZSTD = 6
}

enum TDataBlockEncoding {
  NONE = 0,
  PREFIX = 2,
  DIFF = 3,
  FAST_DIFF = 4,
  ROW_INDEX_V1 = 7
}

/* ---- data structs ---- */

struct TTimeRange {
  1: required i64 minStamp,
  2: required i64 maxStamp
}

struct TColumn {
  1: required binary family,
  2: optional binary qualifier,
  3: optional i64 timestamp
}

struct TColumnValue {
  1: required binary family,
  2: required binary qualifier,
  3: required binary value,
  4: optional i64 timestamp,
  5: optional binary tags,
  6: optional i8 type
}

struct TColumnIncrement {
  1: required binary family,
  2: required binary qualifier,
  3: optional i64 amount = 1
}

/* row is unset for a missing row (columnValues then empty). */
struct TResult {
  1: optional binary row,
  2: required list<TColumnValue> columnValues,
  3: optional bool stale = false,
  4: optional bool partial = false
}

struct TGet {
  1: required binary row,
  2: optional list<TColumn> columns,
  3: optional i64 timestamp,
  4: optional TTimeRange timeRange,
  5: optional i32 maxVersions
}

struct TPut {
  1: required binary row,
  2: required list<TColumnValue> columnValues,
  3: optional i64 timestamp,
  6: optional TDurability durability
}

/* No columns = the whole row. deleteType's default is applied by the server
 * only when the field is absent (the C client never sends a default). */
struct TDelete {
  1: required binary row,
  2: optional list<TColumn> columns,
  3: optional i64 timestamp,
  4: optional TDeleteType deleteType = 1,
  7: optional TDurability durability
}

struct TIncrement {
  1: required binary row,
  2: required list<TColumnIncrement> columns,
  5: optional TDurability durability,
  7: optional bool returnResults
}

/* startRow inclusive, stopRow exclusive (unset = end of table). */
struct TScan {
  1: optional binary startRow,
  2: optional binary stopRow,
  3: optional list<TColumn> columns,
  4: optional i32 caching,
  5: optional i32 maxVersions = 1,
  6: optional TTimeRange timeRange,
  7: optional binary filterString,
  8: optional i32 batchSize,
  11: optional bool reversed,
  12: optional bool cacheBlocks,
  15: optional i32 limit
}

union TMutation {
  1: TPut put,
  2: TDelete deleteSingle
}

struct TRowMutations {
  1: required binary row,
  2: required list<TMutation> mutations
}

/* ---- DDL structs ---- */

struct TTableName {
  1: optional binary ns,
  2: required binary qualifier
}

/* Field 5 is spelt this way in the upstream interface. */
struct TColumnFamilyDescriptor {
  1: required binary name,
  2: optional map<binary, binary> attributes,
  3: optional map<string, string> configuration,
  4: optional i32 blockSize,
  5: optional TBloomFilterType bloomnFilterType,
  6: optional TCompressionAlgorithm compressionType,
  8: optional TDataBlockEncoding dataBlockEncoding,
  10: optional i32 maxVersions,
  11: optional i32 minVersions,
  13: optional i32 timeToLive
}

struct TTableDescriptor {
  1: required TTableName tableName,
  2: optional list<TColumnFamilyDescriptor> columns,
  3: optional map<binary, binary> attributes,
  4: optional TDurability durability
}

struct TNamespaceDescriptor {
  1: required string name,
  2: optional map<string, string> configuration
}

/* ---- exceptions ---- */

/* canRetry is FALSE for the server's DoNotRetryIOException. */
exception TIOError {
  1: optional string message,
  2: optional bool canRetry
}

exception TIllegalArgument {
  1: optional string message
}

/* ---- the gateway ---- */

service THBaseService {
  bool exists(1: required binary table, 2: required TGet tget) throws (1: TIOError io)

  TResult get(1: required binary table, 2: required TGet tget) throws (1: TIOError io)

  /* Results in request order; a missing row is an empty TResult. */
  list<TResult> getMultiple(1: required binary table, 2: required list<TGet> tgets)
    throws (1: TIOError io)

  void put(1: required binary table, 2: required TPut tput) throws (1: TIOError io)

  /* A null value means "column absent"; the C client always sends a value,
   * and the region treats an empty one as "absent or empty". */
  bool checkAndPut(1: required binary table, 2: required binary row,
                   3: required binary family, 4: required binary qualifier,
                   5: binary value, 6: required TPut tput) throws (1: TIOError io)

  /* Not atomic across rows. */
  void putMultiple(1: required binary table, 2: required list<TPut> tputs)
    throws (1: TIOError io)

  void deleteSingle(1: required binary table, 2: required TDelete tdelete)
    throws (1: TIOError io)

  /* Always answers an empty list on HBase 2.x. */
  list<TDelete> deleteMultiple(1: required binary table, 2: required list<TDelete> tdeletes)
    throws (1: TIOError io)

  bool checkAndDelete(1: required binary table, 2: required binary row,
                      3: required binary family, 4: required binary qualifier,
                      5: binary value, 6: required TDelete tdelete) throws (1: TIOError io)

  /* Answers the values after the increment. */
  TResult increment(1: required binary table, 2: required TIncrement tincrement)
    throws (1: TIOError io)

  i32 openScanner(1: required binary table, 2: required TScan tscan) throws (1: TIOError io)

  /* An empty list means the scanner is exhausted. */
  list<TResult> getScannerRows(1: required i32 scannerId, 2: i32 numRows = 1)
    throws (1: TIOError io, 2: TIllegalArgument ia)

  void closeScanner(1: required i32 scannerId) throws (1: TIOError io, 2: TIllegalArgument ia)

  void mutateRow(1: required binary table, 2: required TRowMutations trowMutations)
    throws (1: TIOError io)

  /* openScanner + getScannerRows(numRows) + closeScanner in one call. */
  list<TResult> getScannerResults(1: required binary table, 2: required TScan tscan,
                                  3: i32 numRows = 1) throws (1: TIOError io)

  bool checkAndMutate(1: required binary table, 2: required binary row,
                      3: required binary family, 4: required binary qualifier,
                      5: TCompareOp compareOp, 6: binary value,
                      7: TRowMutations rowMutations) throws (1: TIOError io)

  /* ---- DDL (synchronous on the server) ---- */

  bool tableExists(1: TTableName tableName) throws (1: TIOError io)

  /* An empty splitKeys list means one region. */
  void createTable(1: TTableDescriptor desc, 2: list<binary> splitKeys) throws (1: TIOError io)

  void deleteTable(1: TTableName tableName) throws (1: TIOError io)

  void disableTable(1: TTableName tableName) throws (1: TIOError io)

  TNamespaceDescriptor getNamespaceDescriptor(1: string name) throws (1: TIOError io)

  void createNamespace(1: TNamespaceDescriptor namespaceDesc) throws (1: TIOError io)

  list<string> listNamespaces() throws (1: TIOError io)
}
