#ifndef NOWETL_CCURL_SHIM_H
#define NOWETL_CCURL_SHIM_H
#include <stddef.h>
#include <curl/curl.h>

/* curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, and Swift cannot call C
   variadic functions: each argument type NowData passes gets a fixed-argument wrapper here. Nothing
   else lives here. */

typedef size_t (*nowetl_curl_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode nowetl_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode nowetl_curl_easy_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/* Strings (copied by libcurl), slists and opaque context pointers. */
static inline CURLcode nowetl_curl_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}

/* CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION. */
static inline CURLcode nowetl_curl_easy_setopt_data_callback(CURL *handle, CURLoption option,
                                                             nowetl_curl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

static inline CURLcode nowetl_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode nowetl_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

/* curl_global_init(CURL_GLOBAL_DEFAULT): the flag is a macro expression Swift does not import. */
static inline CURLcode nowetl_curl_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }

/* The easy handle and result of a CURLMSG_DONE message (the result sits in a union). */
static inline CURL *nowetl_curl_msg_easy_handle(const CURLMsg *message) { return message->easy_handle; }
static inline int nowetl_curl_msg_is_done(const CURLMsg *message) { return message->msg == CURLMSG_DONE; }
static inline CURLcode nowetl_curl_msg_result(const CURLMsg *message) { return message->data.result; }
#endif
