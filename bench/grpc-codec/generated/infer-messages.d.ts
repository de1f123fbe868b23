import * as $protobuf from "protobufjs/minimal.js";
import Long = require("long");

/** Namespace inference. */
export namespace inference {

    /**
     * Properties of an InferParameter.
     * @deprecated Use inference.InferParameter.$Properties instead.
     */
    interface IInferParameter extends inference.InferParameter.$Properties {
    }

    /** Represents an InferParameter. */
    class InferParameter {

        /**
         * Constructs a new InferParameter.
         * @param [properties] Properties to set
         */
        constructor(properties?: inference.InferParameter.$Properties);

        /** Unknown fields preserved while decoding when enabled */
        $unknowns?: Uint8Array[];

        /** InferParameter bool_param. */
        bool_param?: (boolean|null);

        /** InferParameter int64_param. */
        int64_param?: (number|Long|null);

        /** InferParameter string_param. */
        string_param?: (string|null);

        /** InferParameter double_param. */
        double_param?: (number|null);

        /** InferParameter uint64_param. */
        uint64_param?: (number|Long|null);

        /** InferParameter parameter_choice. */
        parameter_choice?: ("bool_param"|"int64_param"|"string_param"|"double_param"|"uint64_param");

        /**
         * Encodes the specified InferParameter message. Does not implicitly {@link inference.InferParameter.verify|verify} messages.
         * @param message InferParameter message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        static encode(message: inference.InferParameter.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes an InferParameter message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns {inference.InferParameter & inference.InferParameter.$Shape} InferParameter
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): inference.InferParameter & inference.InferParameter.$Shape;
    }

    namespace InferParameter {

        /** Properties of an InferParameter. */
        interface $Properties {

            /** InferParameter bool_param */
            bool_param?: (boolean|null);

            /** InferParameter int64_param */
            int64_param?: (number|Long|null);

            /** InferParameter string_param */
            string_param?: (string|null);

            /** InferParameter double_param */
            double_param?: (number|null);

            /** InferParameter uint64_param */
            uint64_param?: (number|Long|null);

            /** InferParameter parameter_choice */
            parameter_choice?: ("bool_param"|"int64_param"|"string_param"|"double_param"|"uint64_param");

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];
        }

        /** Narrowed shape of an InferParameter. */
        type $Shape = {
          bool_param?: boolean|null;
          int64_param?: number|Long|null;
          string_param?: string|null;
          double_param?: number|null;
          uint64_param?: number|Long|null;
          $unknowns?: Uint8Array[];
        } & (
          ({ parameter_choice?: undefined; bool_param?: null; int64_param?: null; string_param?: null; double_param?: null; uint64_param?: null }|{ parameter_choice?: "bool_param"; bool_param: boolean; int64_param?: null; string_param?: null; double_param?: null; uint64_param?: null }|{ parameter_choice?: "int64_param"; bool_param?: null; int64_param: number|Long; string_param?: null; double_param?: null; uint64_param?: null }|{ parameter_choice?: "string_param"; bool_param?: null; int64_param?: null; string_param: string; double_param?: null; uint64_param?: null }|{ parameter_choice?: "double_param"; bool_param?: null; int64_param?: null; string_param?: null; double_param: number; uint64_param?: null }|{ parameter_choice?: "uint64_param"; bool_param?: null; int64_param?: null; string_param?: null; double_param?: null; uint64_param: number|Long })
        );
    }

    /**
     * Properties of an InferTensorContents.
     * @deprecated Use inference.InferTensorContents.$Properties instead.
     */
    interface IInferTensorContents extends inference.InferTensorContents.$Properties {
    }

    /** Represents an InferTensorContents. */
    class InferTensorContents {

        /**
         * Constructs a new InferTensorContents.
         * @param [properties] Properties to set
         */
        constructor(properties?: inference.InferTensorContents.$Properties);

        /** Unknown fields preserved while decoding when enabled */
        $unknowns?: Uint8Array[];

        /** InferTensorContents bool_contents. */
        bool_contents: boolean[];

        /** InferTensorContents int_contents. */
        int_contents: number[];

        /** InferTensorContents int64_contents. */
        int64_contents: (number|Long)[];

        /** InferTensorContents uint_contents. */
        uint_contents: number[];

        /** InferTensorContents uint64_contents. */
        uint64_contents: (number|Long)[];

        /** InferTensorContents fp32_contents. */
        fp32_contents: number[];

        /** InferTensorContents fp64_contents. */
        fp64_contents: number[];

        /** InferTensorContents bytes_contents. */
        bytes_contents: Uint8Array[];

        /**
         * Encodes the specified InferTensorContents message. Does not implicitly {@link inference.InferTensorContents.verify|verify} messages.
         * @param message InferTensorContents message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        static encode(message: inference.InferTensorContents.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes an InferTensorContents message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns {inference.InferTensorContents & inference.InferTensorContents.$Shape} InferTensorContents
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): inference.InferTensorContents & inference.InferTensorContents.$Shape;
    }

    namespace InferTensorContents {

        /** Properties of an InferTensorContents. */
        interface $Properties {

            /** InferTensorContents bool_contents */
            bool_contents?: (boolean[]|null);

            /** InferTensorContents int_contents */
            int_contents?: (number[]|null);

            /** InferTensorContents int64_contents */
            int64_contents?: ((number|Long)[]|null);

            /** InferTensorContents uint_contents */
            uint_contents?: (number[]|null);

            /** InferTensorContents uint64_contents */
            uint64_contents?: ((number|Long)[]|null);

            /** InferTensorContents fp32_contents */
            fp32_contents?: (number[]|null);

            /** InferTensorContents fp64_contents */
            fp64_contents?: (number[]|null);

            /** InferTensorContents bytes_contents */
            bytes_contents?: (Uint8Array[]|null);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];
        }

        /** Shape of an InferTensorContents. */
        type $Shape = inference.InferTensorContents.$Properties;
    }

    /**
     * Properties of a ModelInferRequest.
     * @deprecated Use inference.ModelInferRequest.$Properties instead.
     */
    interface IModelInferRequest extends inference.ModelInferRequest.$Properties {
    }

    /** Represents a ModelInferRequest. */
    class ModelInferRequest {

        /**
         * Constructs a new ModelInferRequest.
         * @param [properties] Properties to set
         */
        constructor(properties?: inference.ModelInferRequest.$Properties);

        /** Unknown fields preserved while decoding when enabled */
        $unknowns?: Uint8Array[];

        /** ModelInferRequest model_name. */
        model_name: string;

        /** ModelInferRequest model_version. */
        model_version: string;

        /** ModelInferRequest id. */
        id: string;

        /** ModelInferRequest parameters. */
        parameters: { [k: string]: inference.InferParameter.$Properties };

        /** ModelInferRequest inputs. */
        inputs: inference.ModelInferRequest.InferInputTensor.$Properties[];

        /** ModelInferRequest outputs. */
        outputs: inference.ModelInferRequest.InferRequestedOutputTensor.$Properties[];

        /** ModelInferRequest raw_input_contents. */
        raw_input_contents: Uint8Array[];

        /**
         * Encodes the specified ModelInferRequest message. Does not implicitly {@link inference.ModelInferRequest.verify|verify} messages.
         * @param message ModelInferRequest message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        static encode(message: inference.ModelInferRequest.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes a ModelInferRequest message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns {inference.ModelInferRequest & inference.ModelInferRequest.$Shape} ModelInferRequest
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): inference.ModelInferRequest & inference.ModelInferRequest.$Shape;
    }

    namespace ModelInferRequest {

        /** Properties of a ModelInferRequest. */
        interface $Properties {

            /** ModelInferRequest model_name */
            model_name?: (string|null);

            /** ModelInferRequest model_version */
            model_version?: (string|null);

            /** ModelInferRequest id */
            id?: (string|null);

            /** ModelInferRequest parameters */
            parameters?: ({ [k: string]: inference.InferParameter.$Properties }|null);

            /** ModelInferRequest inputs */
            inputs?: (inference.ModelInferRequest.InferInputTensor.$Properties[]|null);

            /** ModelInferRequest outputs */
            outputs?: (inference.ModelInferRequest.InferRequestedOutputTensor.$Properties[]|null);

            /** ModelInferRequest raw_input_contents */
            raw_input_contents?: (Uint8Array[]|null);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];
        }

        /** Shape of a ModelInferRequest. */
        type $Shape = {
          model_name?: string|null;
          model_version?: string|null;
          id?: string|null;
          parameters?: { [k: string]: inference.InferParameter.$Shape }|null;
          inputs?: inference.ModelInferRequest.InferInputTensor.$Shape[]|null;
          outputs?: inference.ModelInferRequest.InferRequestedOutputTensor.$Shape[]|null;
          raw_input_contents?: Uint8Array[]|null;
          $unknowns?: Uint8Array[];
        };

        /**
         * Properties of an InferInputTensor.
         * @deprecated Use inference.ModelInferRequest.InferInputTensor.$Properties instead.
         */
        interface IInferInputTensor extends inference.ModelInferRequest.InferInputTensor.$Properties {
        }

        /** Represents an InferInputTensor. */
        class InferInputTensor {

            /**
             * Constructs a new InferInputTensor.
             * @param [properties] Properties to set
             */
            constructor(properties?: inference.ModelInferRequest.InferInputTensor.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** InferInputTensor name. */
            name: string;

            /** InferInputTensor datatype. */
            datatype: string;

            /** InferInputTensor shape. */
            shape: (number|Long)[];

            /** InferInputTensor parameters. */
            parameters: { [k: string]: inference.InferParameter.$Properties };

            /** InferInputTensor contents. */
            contents?: (inference.InferTensorContents.$Properties|null);

            /**
             * Encodes the specified InferInputTensor message. Does not implicitly {@link inference.ModelInferRequest.InferInputTensor.verify|verify} messages.
             * @param message InferInputTensor message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: inference.ModelInferRequest.InferInputTensor.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes an InferInputTensor message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {inference.ModelInferRequest.InferInputTensor & inference.ModelInferRequest.InferInputTensor.$Shape} InferInputTensor
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): inference.ModelInferRequest.InferInputTensor & inference.ModelInferRequest.InferInputTensor.$Shape;
        }

        namespace InferInputTensor {

            /** Properties of an InferInputTensor. */
            interface $Properties {

                /** InferInputTensor name */
                name?: (string|null);

                /** InferInputTensor datatype */
                datatype?: (string|null);

                /** InferInputTensor shape */
                shape?: ((number|Long)[]|null);

                /** InferInputTensor parameters */
                parameters?: ({ [k: string]: inference.InferParameter.$Properties }|null);

                /** InferInputTensor contents */
                contents?: (inference.InferTensorContents.$Properties|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of an InferInputTensor. */
            type $Shape = {
              name?: string|null;
              datatype?: string|null;
              shape?: (number|Long)[]|null;
              parameters?: { [k: string]: inference.InferParameter.$Shape }|null;
              contents?: inference.InferTensorContents.$Shape|null;
              $unknowns?: Uint8Array[];
            };
        }

        /**
         * Properties of an InferRequestedOutputTensor.
         * @deprecated Use inference.ModelInferRequest.InferRequestedOutputTensor.$Properties instead.
         */
        interface IInferRequestedOutputTensor extends inference.ModelInferRequest.InferRequestedOutputTensor.$Properties {
        }

        /** Represents an InferRequestedOutputTensor. */
        class InferRequestedOutputTensor {

            /**
             * Constructs a new InferRequestedOutputTensor.
             * @param [properties] Properties to set
             */
            constructor(properties?: inference.ModelInferRequest.InferRequestedOutputTensor.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** InferRequestedOutputTensor name. */
            name: string;

            /** InferRequestedOutputTensor parameters. */
            parameters: { [k: string]: inference.InferParameter.$Properties };

            /**
             * Encodes the specified InferRequestedOutputTensor message. Does not implicitly {@link inference.ModelInferRequest.InferRequestedOutputTensor.verify|verify} messages.
             * @param message InferRequestedOutputTensor message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: inference.ModelInferRequest.InferRequestedOutputTensor.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes an InferRequestedOutputTensor message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {inference.ModelInferRequest.InferRequestedOutputTensor & inference.ModelInferRequest.InferRequestedOutputTensor.$Shape} InferRequestedOutputTensor
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): inference.ModelInferRequest.InferRequestedOutputTensor & inference.ModelInferRequest.InferRequestedOutputTensor.$Shape;
        }

        namespace InferRequestedOutputTensor {

            /** Properties of an InferRequestedOutputTensor. */
            interface $Properties {

                /** InferRequestedOutputTensor name */
                name?: (string|null);

                /** InferRequestedOutputTensor parameters */
                parameters?: ({ [k: string]: inference.InferParameter.$Properties }|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of an InferRequestedOutputTensor. */
            type $Shape = {
              name?: string|null;
              parameters?: { [k: string]: inference.InferParameter.$Shape }|null;
              $unknowns?: Uint8Array[];
            };
        }
    }

    /**
     * Properties of a ModelInferResponse.
     * @deprecated Use inference.ModelInferResponse.$Properties instead.
     */
    interface IModelInferResponse extends inference.ModelInferResponse.$Properties {
    }

    /** Represents a ModelInferResponse. */
    class ModelInferResponse {

        /**
         * Constructs a new ModelInferResponse.
         * @param [properties] Properties to set
         */
        constructor(properties?: inference.ModelInferResponse.$Properties);

        /** Unknown fields preserved while decoding when enabled */
        $unknowns?: Uint8Array[];

        /** ModelInferResponse model_name. */
        model_name: string;

        /** ModelInferResponse model_version. */
        model_version: string;

        /** ModelInferResponse id. */
        id: string;

        /** ModelInferResponse parameters. */
        parameters: { [k: string]: inference.InferParameter.$Properties };

        /** ModelInferResponse outputs. */
        outputs: inference.ModelInferResponse.InferOutputTensor.$Properties[];

        /** ModelInferResponse raw_output_contents. */
        raw_output_contents: Uint8Array[];

        /**
         * Encodes the specified ModelInferResponse message. Does not implicitly {@link inference.ModelInferResponse.verify|verify} messages.
         * @param message ModelInferResponse message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        static encode(message: inference.ModelInferResponse.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes a ModelInferResponse message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns {inference.ModelInferResponse & inference.ModelInferResponse.$Shape} ModelInferResponse
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): inference.ModelInferResponse & inference.ModelInferResponse.$Shape;
    }

    namespace ModelInferResponse {

        /** Properties of a ModelInferResponse. */
        interface $Properties {

            /** ModelInferResponse model_name */
            model_name?: (string|null);

            /** ModelInferResponse model_version */
            model_version?: (string|null);

            /** ModelInferResponse id */
            id?: (string|null);

            /** ModelInferResponse parameters */
            parameters?: ({ [k: string]: inference.InferParameter.$Properties }|null);

            /** ModelInferResponse outputs */
            outputs?: (inference.ModelInferResponse.InferOutputTensor.$Properties[]|null);

            /** ModelInferResponse raw_output_contents */
            raw_output_contents?: (Uint8Array[]|null);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];
        }

        /** Shape of a ModelInferResponse. */
        type $Shape = {
          model_name?: string|null;
          model_version?: string|null;
          id?: string|null;
          parameters?: { [k: string]: inference.InferParameter.$Shape }|null;
          outputs?: inference.ModelInferResponse.InferOutputTensor.$Shape[]|null;
          raw_output_contents?: Uint8Array[]|null;
          $unknowns?: Uint8Array[];
        };

        /**
         * Properties of an InferOutputTensor.
         * @deprecated Use inference.ModelInferResponse.InferOutputTensor.$Properties instead.
         */
        interface IInferOutputTensor extends inference.ModelInferResponse.InferOutputTensor.$Properties {
        }

        /** Represents an InferOutputTensor. */
        class InferOutputTensor {

            /**
             * Constructs a new InferOutputTensor.
             * @param [properties] Properties to set
             */
            constructor(properties?: inference.ModelInferResponse.InferOutputTensor.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** InferOutputTensor name. */
            name: string;

            /** InferOutputTensor datatype. */
            datatype: string;

            /** InferOutputTensor shape. */
            shape: (number|Long)[];

            /** InferOutputTensor parameters. */
            parameters: { [k: string]: inference.InferParameter.$Properties };

            /** InferOutputTensor contents. */
            contents?: (inference.InferTensorContents.$Properties|null);

            /**
             * Encodes the specified InferOutputTensor message. Does not implicitly {@link inference.ModelInferResponse.InferOutputTensor.verify|verify} messages.
             * @param message InferOutputTensor message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: inference.ModelInferResponse.InferOutputTensor.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes an InferOutputTensor message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {inference.ModelInferResponse.InferOutputTensor & inference.ModelInferResponse.InferOutputTensor.$Shape} InferOutputTensor
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): inference.ModelInferResponse.InferOutputTensor & inference.ModelInferResponse.InferOutputTensor.$Shape;
        }

        namespace InferOutputTensor {

            /** Properties of an InferOutputTensor. */
            interface $Properties {

                /** InferOutputTensor name */
                name?: (string|null);

                /** InferOutputTensor datatype */
                datatype?: (string|null);

                /** InferOutputTensor shape */
                shape?: ((number|Long)[]|null);

                /** InferOutputTensor parameters */
                parameters?: ({ [k: string]: inference.InferParameter.$Properties }|null);

                /** InferOutputTensor contents */
                contents?: (inference.InferTensorContents.$Properties|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of an InferOutputTensor. */
            type $Shape = {
              name?: string|null;
              datatype?: string|null;
              shape?: (number|Long)[]|null;
              parameters?: { [k: string]: inference.InferParameter.$Shape }|null;
              contents?: inference.InferTensorContents.$Shape|null;
              $unknowns?: Uint8Array[];
            };
        }
    }

    /**
     * Properties of a ModelStreamInferResponse.
     * @deprecated Use inference.ModelStreamInferResponse.$Properties instead.
     */
    interface IModelStreamInferResponse extends inference.ModelStreamInferResponse.$Properties {
    }

    /** Represents a ModelStreamInferResponse. */
    class ModelStreamInferResponse {

        /**
         * Constructs a new ModelStreamInferResponse.
         * @param [properties] Properties to set
         */
        constructor(properties?: inference.ModelStreamInferResponse.$Properties);

        /** Unknown fields preserved while decoding when enabled */
        $unknowns?: Uint8Array[];

        /** ModelStreamInferResponse error_message. */
        error_message: string;

        /** ModelStreamInferResponse infer_response. */
        infer_response?: (inference.ModelInferResponse.$Properties|null);

        /**
         * Encodes the specified ModelStreamInferResponse message. Does not implicitly {@link inference.ModelStreamInferResponse.verify|verify} messages.
         * @param message ModelStreamInferResponse message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        static encode(message: inference.ModelStreamInferResponse.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes a ModelStreamInferResponse message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns {inference.ModelStreamInferResponse & inference.ModelStreamInferResponse.$Shape} ModelStreamInferResponse
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): inference.ModelStreamInferResponse & inference.ModelStreamInferResponse.$Shape;
    }

    namespace ModelStreamInferResponse {

        /** Properties of a ModelStreamInferResponse. */
        interface $Properties {

            /** ModelStreamInferResponse error_message */
            error_message?: (string|null);

            /** ModelStreamInferResponse infer_response */
            infer_response?: (inference.ModelInferResponse.$Properties|null);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];
        }

        /** Shape of a ModelStreamInferResponse. */
        type $Shape = {
          error_message?: string|null;
          infer_response?: inference.ModelInferResponse.$Shape|null;
          $unknowns?: Uint8Array[];
        };
    }
}
